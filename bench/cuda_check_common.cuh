/* What the three CUDA reference checkers (bench/cuda_refcheck.cu, cuda_suitecheck.cu, cuda_fusioncheck.cu) share:
 * CUDA error exits, counter-based device random numbers, the timer (L2 flushed before each iteration, CUDA events
 * around the work, median of TIMED_ITERS after WARMUP_ITERS), the two measured ceilings (1 GiB device-to-device copy,
 * cuBLAS bf16 GEMMs on their own random operands), what each level-2/3 task is measured against, and running a task
 * in a child process whose table rows come back over a pipe. Header-only; each checker includes it once. */
#pragma once
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cublas_v2.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace kfc {

constexpr int WARMUP_ITERS = 5, TIMED_ITERS = 30;
constexpr long long COPY_BYTES = 1ll << 30;
constexpr int FILL_BLOCKS = 4096, FILL_THREADS = 256;
constexpr int EXIT_SETUP = 3;   /* the checkers' exit status for a setup or CUDA error */

[[noreturn]] inline void die_cuda(cudaError_t e, const char *what, int line) {
    fprintf(stderr, "%s:%d: %s: %s\n", program_invocation_short_name, line, what, cudaGetErrorString(e));
    exit(EXIT_SETUP);
}

[[noreturn]] inline void die(const char *msg, const char *detail = "") {
    fprintf(stderr, "%s: %s%s\n", program_invocation_short_name, msg, detail);
    exit(EXIT_SETUP);
}

#define KFC_CUDA_OK(call)                                                    \
    do {                                                                     \
        const cudaError_t e_ = (call);                                       \
        if (e_ != cudaSuccess) kfc::die_cuda(e_, #call, __LINE__);           \
    } while (0)

/* ---- counter-based random numbers: value i of stream `seed`, the same on any launch shape ---- */
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Two uniforms: u1 in (0, 1], u2 in [0, 1). */
__device__ __forceinline__ void uniform_pair(unsigned long long seed, long long i, double &u1, double &u2) {
    const unsigned long long h = mix64(seed * 0x9e3779b97f4a7c15ull + (unsigned long long)i);
    u1 = ((h >> 40) + 1.0) / 16777217.0;
    u2 = (double)((h >> 16) & 0xffffff) / 16777216.0;
}

__device__ __forceinline__ double normal_at(unsigned long long seed, long long i) {
    double u1, u2;
    uniform_pair(seed, i, u1, u2);
    return sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
}

template <class T>
__global__ void fill_normal(T *p, long long n, unsigned long long seed, float mean, float stddev) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        p[i] = (T)(mean + stddev * (float)normal_at(seed, i));
}

/* ---- timing ---- */
struct timer {
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    void *flush = nullptr;         /* written before each timed iteration to evict L2 */
    size_t flush_bytes = 0;

    /* The stream everything runs on; persisting L2 lines reset, a flush buffer of twice the L2. */
    void open() {
        cudaDeviceProp prop;
        KFC_CUDA_OK(cudaGetDeviceProperties(&prop, 0));
        KFC_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        KFC_CUDA_OK(cudaEventCreate(&start));
        KFC_CUDA_OK(cudaEventCreate(&stop));
        KFC_CUDA_OK(cudaCtxResetPersistingL2Cache());
        flush_bytes = 2 * (size_t)prop.l2CacheSize;
        KFC_CUDA_OK(cudaMalloc(&flush, flush_bytes));
    }

    /* Median time of launch() over TIMED_ITERS iterations after WARMUP_ITERS, each after an L2 flush. */
    template <class F> double median_ms(F launch) {
        std::vector<float> ms;
        for (int i = 0; i < WARMUP_ITERS + TIMED_ITERS; ++i) {
            KFC_CUDA_OK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, stream));
            KFC_CUDA_OK(cudaEventRecord(start, stream));
            launch();
            KFC_CUDA_OK(cudaEventRecord(stop, stream));
            KFC_CUDA_OK(cudaEventSynchronize(stop));
            KFC_CUDA_OK(cudaGetLastError());
            float t = 0.0f;
            KFC_CUDA_OK(cudaEventElapsedTime(&t, start, stop));
            if (i >= WARMUP_ITERS) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        return ms[ms.size() / 2];
    }

    /* The copy ceiling: a 1 GiB device-to-device copy (it moves 2 * COPY_BYTES: read plus write). */
    double copy_ms() {
        char *src = nullptr, *dst = nullptr;
        KFC_CUDA_OK(cudaMalloc(&src, COPY_BYTES));
        KFC_CUDA_OK(cudaMalloc(&dst, COPY_BYTES));
        KFC_CUDA_OK(cudaMemsetAsync(src, 1, COPY_BYTES, stream));
        const double t = median_ms([&] {
            KFC_CUDA_OK(cudaMemcpyAsync(dst, src, COPY_BYTES, cudaMemcpyDeviceToDevice, stream));
        });
        cudaFree(src);
        cudaFree(dst);
        return t;
    }
};

/* ---- cuBLAS: row-major bf16 products with fp32 accumulation ---- */
inline cublasHandle_t blas_open(cudaStream_t stream) {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS)
        die("cuBLAS init failed");
    return h;
}

/* C[m][n] = A[m][k] B[k][n] through the column-major call C^T = B^T A^T. */
inline cublasStatus_t gemm_bf16(cublasHandle_t h, const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C,
                                long long m, long long n, long long k) {
    static const float one = 1.0f, zero = 0.0f;
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, B, CUDA_R_16BF, (int)n, A,
                        CUDA_R_16BF, (int)k, &zero, C, CUDA_R_16BF, (int)n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

struct gemm_shape { long long m, n, k; };

/* The GEMM ceiling of a task: these products back to back on random operands of their own. */
inline double gemms_ms(timer &t, cublasHandle_t h, const std::vector<gemm_shape> &gemms) {
    std::vector<__nv_bfloat16 *> bufs;
    for (const gemm_shape &g : gemms)
        for (long long n : {g.m * g.k, g.k * g.n, g.m * g.n}) {
            __nv_bfloat16 *p = nullptr;
            KFC_CUDA_OK(cudaMalloc(&p, n * sizeof(__nv_bfloat16)));
            fill_normal<<<FILL_BLOCKS, FILL_THREADS, 0, t.stream>>>(p, n, bufs.size() + 7, 0.0f, 1.0f);
            KFC_CUDA_OK(cudaGetLastError());
            bufs.push_back(p);
        }
    const double ms = t.median_ms([&] {
        for (size_t i = 0; i < gemms.size(); ++i)
            if (gemm_bf16(h, bufs[3 * i], bufs[3 * i + 1], bufs[3 * i + 2], gemms[i].m, gemms[i].n, gemms[i].k) !=
                CUBLAS_STATUS_SUCCESS)
                die("cublasGemmEx failed");
    });
    for (__nv_bfloat16 *p : bufs) cudaFree(p);
    return ms;
}

/* ---- what the level-2/3 tasks are measured against (bench/cuda_fusioncheck.sh reads these tables too) ---- */
constexpr int MAX_TASK_GEMMS = 4;

/* Tasks that are GEMMs plus elementwise work: the products cuBLAS would run for the same work, as "m,n,k"
 * expressions in the task's symbols. */
struct gemm_work { const char *task; const char *gemms[MAX_TASK_GEMMS]; };
static const gemm_work GEMM_WORK[] = {
    {"gemm_bias_gelu", {"M,N,K"}},
    {"swiglu_up", {"M,2*N,K"}},
    {"rmsnorm_matmul", {"M,N,K"}},
    {"gemm_rowscale", {"M,N,K"}},
    {"mlp_block", {"M,2*F,Dm", "M,Dm,F"}},
    {"decoder_layer", {"B*L,(H+2*HKV)*D,H*D", "B*L,H*D,H*D", "B*L,2*F,H*D", "B*L,H*D,F"}},
};

/* Tasks measured by their FLOP rate against a fixed target (TFLOP/s), and tasks with no baseline; every other
 * level-2/3 task is memory-bound and measured against the copy bandwidth. */
struct flop_target { const char *task; double tflops; };
static const flop_target FLOP_TARGETS[] = {{"flash_attention", 300.0}, {"flash_attention_causal", 300.0}};
static const char *const NO_BASELINE[] = {"long_conv"};

inline const gemm_work *find_gemm_work(const char *task) {
    for (const gemm_work &w : GEMM_WORK)
        if (!strcmp(w.task, task)) return &w;
    return nullptr;
}

inline double flop_target_of(const char *task) {
    for (const flop_target &f : FLOP_TARGETS)
        if (!strcmp(f.task, task)) return f.tflops;
    return 0.0;
}

inline bool has_no_baseline(const char *task) {
    for (const char *t : NO_BASELINE)
        if (!strcmp(t, task)) return true;
    return false;
}

/* ---- child processes ---- */

/* A task running in a child process with an alarm; the rows it fills (plain structs) come back over a pipe. */
struct child { pid_t pid; int fd; };

template <class Row, class Body> child child_start(int timeout_s, Body body) {
    int fds[2];
    if (pipe(fds) != 0) die("pipe failed");
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) die("fork failed");
    if (pid == 0) {
        close(fds[0]);
        alarm(timeout_s);
        std::vector<Row> mine;
        body(mine);
        fflush(stdout);
        for (const Row &r : mine)
            if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(EXIT_SETUP);
        _exit(0);
    }
    close(fds[1]);
    return child{pid, fds[0]};
}

/* Collects a child's rows; one that died or sent nothing leaves one row made by died(text), text saying how. */
template <class Row, class Died> void child_finish(const child &ch, std::vector<Row> &rows, Died died) {
    Row r;
    size_t got = 0;
    while (read(ch.fd, &r, sizeof r) == (ssize_t)sizeof r) {
        rows.push_back(r);
        ++got;
    }
    close(ch.fd);
    int status = 0;
    waitpid(ch.pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && got > 0) return;
    char text[64];
    if (WIFSIGNALED(status)) snprintf(text, sizeof text, "child killed by signal %d", WTERMSIG(status));
    else snprintf(text, sizeof text, "child exit %d", WEXITSTATUS(status));
    rows.push_back(died(text));
}

template <class Row, class Body, class Died>
void run_in_child(int timeout_s, std::vector<Row> &rows, Body body, Died died) {
    child_finish<Row>(child_start<Row>(timeout_s, body), rows, died);
}

} /* namespace kfc */
