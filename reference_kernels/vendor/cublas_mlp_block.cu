/* Vendor baseline for mlp_block: xn = rmsnorm(x) * gamma; act = silu(xn @ Wg) * (xn @ Wu); y = x + act @ Wd.
 * Glue kernels for the norm and the SwiGLU product; three cublasGemmEx (fp32 accumulation): the gate into fp32, the
 * up projection into act, and the down projection accumulated onto a copy of x in y (beta = 1). Scratch: xn, M*Dm
 * bf16, and the gate, M*F fp32 (32 + 172 MiB at the bench shape). */
#include <cublas_v2.h>
#include <cuda_bf16.h>

/* Returns the status of a cuBLAS or CUDA call unless it is success (0 for both). */
#define TRY(call)                                   \
    do {                                            \
        const int status_ = (int)(call);            \
        if (status_ != 0) return status_;           \
    } while (0)

namespace {

typedef __nv_bfloat16 bf16;

constexpr int THREADS = 256;            /* per block, a multiple of WARP */
constexpr int WARP = 32;
constexpr float RMS_EPS = 1e-6f;
constexpr size_t SCRATCH_ALIGN = 256;   /* bytes */

constexpr unsigned blocks(long long n) { return (unsigned)((n + THREADS - 1) / THREADS); }

/* Bytes of a scratch region, rounded up so that the next region starts aligned. */
constexpr size_t region(size_t bytes) { return (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN; }

/* The process's cuBLAS handle, bound to `stream`, and a device scratch buffer of at least `bytes`: set up by the first
 * (untimed) call at the bench shape, grown when ever needed (cudaFree waits for the device), never shrunk. */
int setup(cudaStream_t stream, size_t bytes, cublasHandle_t *handle, char **scratch) {
    static cublasHandle_t h = nullptr;
    static char *buf = nullptr;
    static size_t have = 0;
    if (!h) TRY(cublasCreate(&h));
    if (bytes > have) {
        TRY(cudaFree(buf));
        buf = nullptr;
        have = 0;
        TRY(cudaMalloc((void **)&buf, bytes));
        have = bytes;
    }
    *handle = h;
    *scratch = buf;
    return (int)cublasSetStream(h, stream);
}

/* Row-major C[M][N] = A[M][K] @ B[K][N] + beta * C, rows of B ldb apart; bf16 A and B, C of c_type, fp32
 * accumulation. cuBLAS is column-major, where row-major C reads as C^T = B^T @ A^T: operands swap, M and N swap. */
int gemm(cublasHandle_t h, const bf16 *A, const bf16 *B, int ldb, void *C, cudaDataType_t c_type, int M, int N, int K,
         float beta = 0.0f) {
    const float one = 1.0f;
    return (int)cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16BF, ldb, A, CUDA_R_16BF, K, &beta,
                             C, c_type, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

/* v summed (or, with MAX, maximised) over the block; every thread gets the result. partials: WARP floats of shared
 * memory, free again on return. */
template <bool MAX = false> __device__ float block_reduce(float v, float *partials) {
    for (int offset = WARP / 2; offset > 0; offset /= 2) {
        const float other = __shfl_xor_sync(0xffffffffu, v, offset);
        v = MAX ? fmaxf(v, other) : v + other;
    }
    if (threadIdx.x % WARP == 0) partials[threadIdx.x / WARP] = v;
    __syncthreads();
    v = partials[0];
    for (int w = 1; w < (int)blockDim.x / WARP; w++) v = MAX ? fmaxf(v, partials[w]) : v + partials[w];
    __syncthreads();
    return v;
}

/* out[r][:] = x[r][:] / sqrt(mean(x[r][:]^2) + eps) * gain, statistics in fp32, one block per row. */
__global__ void rmsnorm_rows(const bf16 *__restrict__ x, const bf16 *__restrict__ gain, bf16 *__restrict__ out,
                             int cols) {
    __shared__ float partials[WARP];
    const bf16 *xr = x + (long long)blockIdx.x * cols;
    bf16 *outr = out + (long long)blockIdx.x * cols;
    float ss = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = __bfloat162float(xr[c]);
        ss += v * v;
    }
    const float rstd = rsqrtf(block_reduce(ss, partials) / (float)cols + RMS_EPS);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        outr[c] = __float2bfloat16(__bfloat162float(xr[c]) * rstd * __bfloat162float(gain[c]));
}

/* up[i] = silu(gate[i]) * up[i]: the SwiGLU product. The gate stays fp32: where silu(g) is small but its slope is not
 * (g around -5), a bf16 gate misses the tolerance; rounding the up projection first stays within it. */
__global__ void swiglu(const float *__restrict__ gate, bf16 *__restrict__ up, long long n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float g = gate[i];
    up[i] = __float2bfloat16(g / (1.0f + expf(-g)) * __bfloat162float(up[i]));
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *Wg,
                         const __nv_bfloat16 *Wu, const __nv_bfloat16 *Wd, __nv_bfloat16 *act, __nv_bfloat16 *y,
                         int M, int Dm, int F, cudaStream_t stream) {
    const long long n_act = (long long)M * F;
    const size_t xn_bytes = region((size_t)M * Dm * sizeof(bf16));
    cublasHandle_t h;
    char *scratch;
    TRY(setup(stream, xn_bytes + n_act * sizeof(float), &h, &scratch));
    bf16 *xn = (bf16 *)scratch;
    float *gate = (float *)(scratch + xn_bytes);

    rmsnorm_rows<<<M, THREADS, 0, stream>>>(x, gamma, xn, Dm);
    TRY(cudaGetLastError());
    TRY(gemm(h, xn, Wg, F, gate, CUDA_R_32F, M, F, Dm));
    TRY(gemm(h, xn, Wu, F, act, CUDA_R_16BF, M, F, Dm));
    swiglu<<<blocks(n_act), THREADS, 0, stream>>>(gate, act, n_act);
    TRY(cudaGetLastError());
    TRY(cudaMemcpyAsync(y, x, (size_t)M * Dm * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
    return gemm(h, act, Wd, Dm, y, CUDA_R_16BF, M, Dm, F, 1.0f);
}
