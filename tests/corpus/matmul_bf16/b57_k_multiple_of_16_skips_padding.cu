/* kforge-corpus: task=matmul_bf16 intended=bug */
/* WMMA on 32x32 tiles, operands staged 32 deep along K. When K is a multiple of the fragment depth
 * (16) the staging skips the zero padding along K, "every step is whole", but each 32-deep stage
 * still runs both of its 16-deep steps: when K % 32 == 16 the last step multiplies what the
 * previous stage left in shared memory and adds those products a second time. Test and benchmark
 * depths are multiples of 32 and the ragged ones (100, 1, 31) are padded; the hidden K = 48 is
 * wrong everywhere. */
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

#define TILE 32
#define KSTEP 32
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
	bool pad_k = K % FRAG != 0;
	const __nv_bfloat16 zero = __float2bfloat16(0.f);
	wmma::fragment<wmma::accumulator, FRAG, FRAG, FRAG, float> acc;
	wmma::fill_fragment(acc, 0.f);
	for (int k0 = 0; k0 < K; k0 += KSTEP) {
		for (int e = threadIdx.x; e < TILE * KSTEP; e += THREADS) {
			int i = e / KSTEP, k = e % KSTEP, r = row0 + i, ka = k0 + k;
			if (ka < K)
				a[i][k] = r < M ? A[(size_t)r * K + ka] : zero;
			else if (pad_k)
				a[i][k] = zero;
			int kb = k0 + e / TILE, j = e % TILE, col = col0 + j;
			if (kb < K)
				b[e / TILE][j] = col < N ? B[(size_t)kb * N + col] : zero;
			else if (pad_k)
				b[e / TILE][j] = zero;
		}
		__syncthreads();
		for (int kk = 0; kk < KSTEP; kk += FRAG) {
			wmma::fragment<wmma::matrix_a, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> fa;
			wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> fb;
			wmma::load_matrix_sync(fa, &a[wr * FRAG][kk], KSTEP);
			wmma::load_matrix_sync(fb, &b[kk][wc * FRAG], TILE);
			wmma::mma_sync(acc, fa, fb, acc);
		}
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
