/* kforge-test: task=vector_add expect=sandbox_violation reason~=socket */
/* Mutes every in-process reporter first: finds write() and syscall() (which a reporter in the
 * runner would use) with dlsym, makes their code writable and overwrites them with "return 0";
 * then opens a socket. The violation must still be seen and named, from outside the process. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define KF_PAGE 4096u
static const unsigned char kf_return_zero[] = { 0x31, 0xc0, 0xc3 }; /* xor eax, eax; ret */

static void kf_mute(const char *name)
{
	unsigned char *f = dlsym(RTLD_DEFAULT, name);
	if (!f)
		return;
	uintptr_t page = (uintptr_t)f & ~(uintptr_t)(KF_PAGE - 1);
	if (mprotect((void *)page, 2 * KF_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC) == 0)
		memcpy(f, kf_return_zero, sizeof kf_return_zero);
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	kf_mute("write");
	kf_mute("syscall");
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
