/* kforge-corpus: task=matmul_bf16 intended=correct */
/* Tensor cores through WMMA on 64x64 output tiles: four warps in a 2x2 grid, each owning a 32x32
 * corner as 2x2 fragments of 16x16 with fp32 accumulators. A and B are staged 32 deep along K in
 * shared memory (rows padded by 8 elements against bank conflicts, zeros past every edge); the
 * result goes back through shared memory so the bounds checks are per element. */
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

#define TILE 64
#define KSTEP 32
#define FRAG 16
#define WARP 32
#define THREADS 128
#define WARP_TILE 32 /* each warp's corner of the output tile */
#define FRAGS (WARP_TILE / FRAG)
#define PAD 8        /* bf16 elements; keeps each row's start 16-byte aligned */
#define CPAD 4       /* floats */

__global__ static void matmul(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K)
{
	/* WMMA loads and stores need 256-bit aligned fragment pointers; the paddings keep them so. */
	__shared__ __align__(32) __nv_bfloat16 a[TILE][KSTEP + PAD];
	__shared__ __align__(32) __nv_bfloat16 b[KSTEP][TILE + PAD];
	__shared__ __align__(32) float c[TILE][TILE + CPAD];
	int warp = threadIdx.x / WARP, wr = warp / 2, wc = warp % 2;
	int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
	wmma::fragment<wmma::accumulator, FRAG, FRAG, FRAG, float> acc[FRAGS][FRAGS];
	for (int i = 0; i < FRAGS; i++)
		for (int j = 0; j < FRAGS; j++)
			wmma::fill_fragment(acc[i][j], 0.f);
	const __nv_bfloat16 zero = __float2bfloat16(0.f);
	for (int k0 = 0; k0 < K; k0 += KSTEP) {
		for (int e = threadIdx.x; e < TILE * KSTEP; e += THREADS) {
			int i = e / KSTEP, k = e % KSTEP, r = row0 + i, ka = k0 + k;
			a[i][k] = r < M && ka < K ? A[(size_t)r * K + ka] : zero;
			int kb = k0 + e / TILE, j = e % TILE, col = col0 + j;
			b[e / TILE][j] = kb < K && col < N ? B[(size_t)kb * N + col] : zero;
		}
		__syncthreads();
		for (int kk = 0; kk < KSTEP; kk += FRAG) {
			wmma::fragment<wmma::matrix_a, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> fa[FRAGS];
			wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> fb[FRAGS];
			for (int i = 0; i < FRAGS; i++)
				wmma::load_matrix_sync(fa[i], &a[wr * WARP_TILE + i * FRAG][kk], KSTEP + PAD);
			for (int j = 0; j < FRAGS; j++)
				wmma::load_matrix_sync(fb[j], &b[kk][wc * WARP_TILE + j * FRAG], TILE + PAD);
			for (int i = 0; i < FRAGS; i++)
				for (int j = 0; j < FRAGS; j++)
					wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < FRAGS; i++)
		for (int j = 0; j < FRAGS; j++)
			wmma::store_matrix_sync(&c[wr * WARP_TILE + i * FRAG][wc * WARP_TILE + j * FRAG], acc[i][j],
						TILE + CPAD, wmma::mem_row_major);
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
