/* kforge-corpus: task=matmul_bf16 intended=bug */
/* WMMA on 32x32 tiles (four warps, 16x16x16 fragments). For K < 64 it switches to fp16 operands
 * and fp16 accumulators, "a few dozen products cannot lose much". For N(0, 1) inputs they do not
 * (the ragged 127 x 129 x 31 passes, at about half the tolerance); for the large-magnitude stress
 * (std 10) the partial sums are in the hundreds, where fp16 steps by 0.25-0.5, and outputs near
 * zero miss the tolerance by far. The default tests stress only the test shapes (K >= 64, fp32
 * accumulation); the stress runs at K = 31 and K = 48 fail. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define TILE 32
#define FRAG 16
#define WARP 32
#define THREADS 128
#define SMALL_K 64

__device__ static void put(__nv_bfloat16 *dst, __nv_bfloat16 v)
{
	*dst = v;
}

__device__ static void put(__half *dst, __nv_bfloat16 v)
{
	*dst = __float2half(__bfloat162float(v));
}

__device__ static float get(float v)
{
	return v;
}

__device__ static float get(__half v)
{
	return __half2float(v);
}

/* T: the operand type of the tensor-core step; ACC: its accumulator type. */
template <typename T, typename ACC>
__global__ static void matmul(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K)
{
	/* WMMA loads and stores need 256-bit aligned pointers. */
	__shared__ __align__(32) T a[TILE][FRAG];
	__shared__ __align__(32) T b[FRAG][TILE];
	__shared__ __align__(32) ACC c[TILE][TILE];
	int warp = threadIdx.x / WARP, wr = warp / 2, wc = warp % 2;
	int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
	const __nv_bfloat16 zero = __float2bfloat16(0.f);
	wmma::fragment<wmma::accumulator, FRAG, FRAG, FRAG, ACC> acc;
	wmma::fill_fragment(acc, static_cast<ACC>(0.f));
	for (int k0 = 0; k0 < K; k0 += FRAG) {
		for (int e = threadIdx.x; e < TILE * FRAG; e += THREADS) {
			int i = e / FRAG, k = e % FRAG, r = row0 + i, ka = k0 + k;
			put(&a[i][k], r < M && ka < K ? A[(size_t)r * K + ka] : zero);
			int kb = k0 + e / TILE, j = e % TILE, col = col0 + j;
			put(&b[e / TILE][j], kb < K && col < N ? B[(size_t)kb * N + col] : zero);
		}
		__syncthreads();
		wmma::fragment<wmma::matrix_a, FRAG, FRAG, FRAG, T, wmma::row_major> fa;
		wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG, T, wmma::row_major> fb;
		wmma::load_matrix_sync(fa, &a[wr * FRAG][0], FRAG);
		wmma::load_matrix_sync(fb, &b[0][wc * FRAG], TILE);
		wmma::mma_sync(acc, fa, fb, acc);
		__syncthreads();
	}
	wmma::store_matrix_sync(&c[wr * FRAG][wc * FRAG], acc, TILE, wmma::mem_row_major);
	__syncthreads();
	for (int e = threadIdx.x; e < TILE * TILE; e += THREADS) {
		int r = row0 + e / TILE, col = col0 + e % TILE;
		if (r < M && col < N)
			C[(size_t)r * N + col] = __float2bfloat16(get(c[e / TILE][e % TILE]));
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
	if (K < SMALL_K)
		matmul<__half, __half><<<grid, THREADS, 0, stream>>>(A, B, C, M, N, K);
	else
		matmul<__nv_bfloat16, float><<<grid, THREADS, 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
