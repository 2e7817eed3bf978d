/* The CUDA runner's hold kernel (see cuda_call() in runner_cuda.c): one thread that keeps the runner's
 * stream busy until the runner writes *release in host-mapped memory, so every launch kf_launch makes is
 * queued before the start event executes and the event window holds the device's work alone. It gives up
 * after timeout_ns of device time: a kf_launch that waits for its own stream (a synchronising call, a lazy
 * module load) is never deadlocked, only timed as if there were no hold.
 * Built by nvcc into a fatbin that the runner embeds and loads before its seccomp filter. */
#define KF_HOLD_POLL_NS 200 /* between looks at *release: often enough to add well under a microsecond */

__device__ static unsigned long long device_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

extern "C" __global__ void kf_runner_hold(const volatile unsigned int *release, unsigned long long timeout_ns)
{
	const unsigned long long t0 = device_ns();
	while (!*release && device_ns() - t0 <= timeout_ns)
		__nanosleep(KF_HOLD_POLL_NS);
}
