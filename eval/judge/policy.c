/* The vendor-library policy from the compiled object's symbol tables (see policy.h). */
#include "eval/judge/policy.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/fs.h"

/* The compile step caps objects at 64 MiB (sandbox/compile.c); the symbol tables are read from it. */
#define KF_POLICY_OBJECT_MAX (64u << 20)
#define KF_POLICY_SYMBOL_MAX 96 /* characters of a symbol named in a reason */

/* Symbol prefixes of vendor math libraries (case-insensitive). */
static const char *const vendor_prefixes[] = { "cublas", "cudnn", "cblas_", "mkl_", "cusparse", "cutensor", "nccl" };
/* Symbols that share a prefix but belong to the CUDA driver itself, which every kernel may use:
 * the tensor-memory-accelerator descriptor (cuTensorMapEncodeTiled) is not cuTENSOR. */
static const char *const driver_prefixes[] = { "cutensormap" };

static bool has_prefix(const char *p, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncasecmp(p, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static bool is_vendor(const char *name)
{
	return has_prefix(name, vendor_prefixes, sizeof vendor_prefixes / sizeof vendor_prefixes[0]) &&
	       !has_prefix(name, driver_prefixes, sizeof driver_prefixes / sizeof driver_prefixes[0]);
}

/* The linkers' words before an undefined symbol's name, and the character that ends the name. */
static const struct {
	const char *lead;
	char end;
} undefined_forms[] = { { "undefined reference to `", '\'' }, { "undefined symbol: ", '\n' } };

bool kf_policy_check_link_log(const struct kf_task *t, const char *log, char *why, size_t why_len)
{
	if (t->vendor_libs_allowed || !log)
		return false;
	for (size_t f = 0; f < sizeof undefined_forms / sizeof undefined_forms[0]; f++)
		for (const char *p = strstr(log, undefined_forms[f].lead); p; p = strstr(p + 1, undefined_forms[f].lead)) {
			const char *name = p + strlen(undefined_forms[f].lead);
			size_t n = strcspn(name, (char[]){ undefined_forms[f].end, '(', ' ', '\0' });
			char sym[KF_POLICY_SYMBOL_MAX];
			snprintf(sym, sizeof sym, "%.*s", (int)(n < sizeof sym ? n : sizeof sym - 1), name);
			if (is_vendor(sym)) {
				snprintf(why, why_len, "the kernel calls %s: task %s forbids vendor libraries", sym, t->name);
				return true;
			}
		}
	return false;
}

static bool within(size_t off, size_t len, size_t size)
{
	return off <= size && len <= size - off;
}

/* The first undefined (imported) symbol of one symbol table that names a vendor function, or NULL. */
static const char *vendor_import(const char *img, size_t size, const Elf64_Shdr *sh, const Elf64_Shdr *strtab)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || !within(sh->sh_offset, sh->sh_size, size) ||
	    !within(strtab->sh_offset, strtab->sh_size, size) || strtab->sh_size == 0)
		return NULL;
	const char *names = img + strtab->sh_offset;
	if (names[strtab->sh_size - 1] != '\0')
		return NULL;
	for (size_t k = 0; k < sh->sh_size / sizeof(Elf64_Sym); k++) {
		Elf64_Sym s;
		memcpy(&s, img + sh->sh_offset + k * sizeof s, sizeof s);
		if (s.st_shndx != SHN_UNDEF || s.st_name == 0 || s.st_name >= strtab->sh_size)
			continue;
		const char *name = names + s.st_name;
		if (is_vendor(name))
			return name;
	}
	return NULL;
}

int kf_policy_check_object(const struct kf_task *t, const char *so_path, bool *violates, char *why, size_t why_len,
			   kf_err *err)
{
	*violates = false;
	if (t->vendor_libs_allowed)
		return KF_OK;
	char *img = NULL;
	size_t size = 0;
	int rc = kf_read_file(so_path, KF_POLICY_OBJECT_MAX, &img, &size, err);
	if (rc != KF_OK)
		return rc;
	Elf64_Ehdr eh;
	if (size < sizeof eh || (memcpy(&eh, img, sizeof eh), memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !within(eh.e_shoff, (size_t)eh.e_shnum * sizeof(Elf64_Shdr), size)) {
		rc = kf_errf(err, KF_EINTERNAL, "the compiled object %s is not an ELF64 object kforge can read", so_path);
		goto out;
	}
	for (int i = 0; i < eh.e_shnum && !*violates; i++) {
		Elf64_Shdr sh, str;
		memcpy(&sh, img + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
		if ((sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || sh.sh_link >= eh.e_shnum)
			continue;
		memcpy(&str, img + eh.e_shoff + (size_t)sh.sh_link * sizeof str, sizeof str);
		const char *name = vendor_import(img, size, &sh, &str);
		if (name) {
			*violates = true;
			snprintf(why, why_len, "the kernel calls %.*s: task %s forbids vendor libraries", KF_POLICY_SYMBOL_MAX,
				 name, t->name);
		}
	}
out:
	free(img);
	return rc;
}

int kf_policy_verdict(const struct kf_task *t, const struct kf_compile_res *cres, enum kf_verdict *verdict, char *why,
		      size_t why_len, kf_err *err)
{
	*verdict = KF_V_OK;
	if (cres->verdict != KF_V_OK) {
		*verdict = KF_V_POLICY_VIOLATION;
		if (!kf_policy_check_link_log(t, cres->log, why, why_len)) {
			*verdict = cres->verdict;
			snprintf(why, why_len, "%s", cres->reason);
		}
		return KF_OK;
	}
	bool forbidden;
	int rc = kf_policy_check_object(t, cres->so_path, &forbidden, why, why_len, err);
	if (rc == KF_OK && forbidden)
		*verdict = KF_V_POLICY_VIOLATION;
	return rc;
}
