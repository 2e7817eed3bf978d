/* kforge-corpus: task=matmul_bf16 intended=correct */
/* Tensor cores through WMMA: four warps per 32x32 output tile, each a 16x16 fragment with fp32
 * accumulation over 16-wide K steps; operands staged in shared memory with zero padding so any
 * shape works, results written through shared memory with bounds checks. */
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

#define TILE 32
#define KSTEP 16
#define FRAG 16
#define WARP 32
#define THREADS 128

__global__ static void matmul(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K)
{
	/* WMMA loads and stores need 256-bit aligned pointers. */
	__shared__ __align__(32) __nv_bfloat16 a[TILE][KSTEP];
	__shared__ __align__(32) __nv_bfloat16 b[KSTEP][TILE];
	__shared__ __align__(32) float c[TILE][TILE];
	int warp = threadIdx.x / WARP, wr = warp / 2, wc = warp % 2;
	int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
	wmma::fragment<wmma::accumulator, FRAG, FRAG, FRAG, float> acc;
	wmma::fill_fragment(acc, 0.f);
	for (int k0 = 0; k0 < K; k0 += KSTEP) {
		for (int e = threadIdx.x; e < TILE * KSTEP; e += THREADS) {
			int i = e / KSTEP, k = e % KSTEP, r = row0 + i, ka = k0 + k;
			a[i][k] = r < M && ka < K ? A[(size_t)r * K + ka] : __float2bfloat16(0.f);
			int kb = k0 + e / TILE, j = e % TILE, col = col0 + j;
			b[e / TILE][j] = kb < K && col < N ? B[(size_t)kb * N + col] : __float2bfloat16(0.f);
		}
		__syncthreads();
		wmma::fragment<wmma::matrix_a, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> fa;
		wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> fb;
		wmma::load_matrix_sync(fa, &a[wr * FRAG][0], KSTEP);
		wmma::load_matrix_sync(fb, &b[0][wc * FRAG], TILE);
		wmma::mma_sync(acc, fa, fb, acc);
		__syncthreads();
	}
	wmma::store_matrix_sync(&c[wr * FRAG][wc * FRAG], acc, TILE, wmma::mem_row_major);
	__syncthreads();
	for (int e = threadIdx.x; e < TILE * TILE; e += THREADS) {
		int r = row0 + e / TILE, col = col0 + e % TILE;
		if (r < M && col < N)
			C[(size_t)r * N + col] = __float2bfloat16(c[e / TILE][e % TILE]);
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
	matmul<<<grid, THREADS, 0, stream>>>(A, B, C, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
