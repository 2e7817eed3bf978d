/* kforge-test: task=vector_add expect=sandbox_violation reason~=socket */
/* Mutes every in-process reporter first: finds write() and syscall() with dlsym, makes their code
 * writable and overwrites them with "return 0"; then opens a socket. The violation must still be
 * seen and named, from outside the process. */
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define KF_PAGE 4096u
static const unsigned char kf_return_zero[] = { 0x31, 0xc0, 0xc3 }; /* xor eax, eax; ret */

__global__ void kf_add(const float *x, const float *y, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i] + y[i];
}

static void kf_mute(const char *name)
{
	unsigned char *f = (unsigned char *)dlsym(RTLD_DEFAULT, name);
	if (!f)
		return;
	uintptr_t page = (uintptr_t)f & ~(uintptr_t)(KF_PAGE - 1);
	if (mprotect((void *)page, 2 * KF_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC) == 0)
		memcpy(f, kf_return_zero, sizeof kf_return_zero);
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	kf_mute("write");
	kf_mute("syscall");
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0)
		close(fd);
	kf_add<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, n);
	return 0;
}
