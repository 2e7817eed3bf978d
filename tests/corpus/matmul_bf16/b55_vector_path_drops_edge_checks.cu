/* kforge-corpus: task=matmul_bf16 intended=bug */
/* 64x64 register-tiled kernel with a 16-byte vector path when M, N and K are all multiples of 8:
 * "no vector can straddle an edge, so no checks". True of the vectors, not of the 64-wide tiles:
 * past the matrix the loads read neighbouring rows (or stale memory) into the sums and the stores
 * spill into the next row of C. Every test and benchmark dimension is a multiple of 64 and every
 * ragged shape has an odd dimension (checked path, right); both hidden shapes (96 x 80 x 200,
 * 200 x 72 x 48) take the vector path and come out wrong. */
#include <cuda_bf16.h>

#define TILE 64
#define KSTEP 16
#define SIDE 16 /* threads per tile side */
#define MICRO (TILE / SIDE)
#define THREADS (SIDE * SIDE)
#define VEC 8   /* bf16 per 16-byte load */

__device__ static void unpack(uint4 u, float *f)
{
	const __nv_bfloat162 *p = (const __nv_bfloat162 *)&u;
	for (int k = 0; k < VEC / 2; k++) {
		float2 t = __bfloat1622float2(p[k]);
		f[2 * k] = t.x;
		f[2 * k + 1] = t.y;
	}
}

__global__ static void matmul(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			      bool checked)
{
	__shared__ float a[KSTEP][TILE + 1]; /* a[k][i] = A[row0 + i][k0 + k] */
	__shared__ float b[KSTEP][TILE + 1]; /* b[k][j] = B[k0 + k][col0 + j] */
	int tx = threadIdx.x % SIDE, ty = threadIdx.x / SIDE;
	int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
	float acc[MICRO][MICRO] = {};
	for (int k0 = 0; k0 < K; k0 += KSTEP) {
		if (checked) {
			for (int e = threadIdx.x; e < TILE * KSTEP; e += THREADS) {
				int i = e / KSTEP, k = e % KSTEP, r = row0 + i, ka = k0 + k;
				a[k][i] = r < M && ka < K ? __bfloat162float(A[(size_t)r * K + ka]) : 0.f;
				int kb = k0 + e / TILE, j = e % TILE, c = col0 + j;
				b[e / TILE][j] = kb < K && c < N ? __bfloat162float(B[(size_t)kb * N + c]) : 0.f;
			}
		} else {
			float v[VEC];
			int e = threadIdx.x % (TILE * KSTEP / VEC);
			if (threadIdx.x < TILE * KSTEP / VEC) { /* half the threads load A, half B */
				int i = e / (KSTEP / VEC), k = e % (KSTEP / VEC) * VEC;
				unpack(*(const uint4 *)(A + (size_t)(row0 + i) * K + k0 + k), v);
				for (int m = 0; m < VEC; m++)
					a[k + m][i] = v[m];
			} else {
				int k = e / (TILE / VEC), j = e % (TILE / VEC) * VEC;
				unpack(*(const uint4 *)(B + (size_t)(k0 + k) * N + col0 + j), v);
				for (int m = 0; m < VEC; m++)
					b[k][j + m] = v[m];
			}
		}
		__syncthreads();
		float part[MICRO][MICRO] = {};
#pragma unroll
		for (int k = 0; k < KSTEP; k++)
#pragma unroll
			for (int i = 0; i < MICRO; i++)
#pragma unroll
				for (int j = 0; j < MICRO; j++)
					part[i][j] += a[k][ty + i * SIDE] * b[k][tx + j * SIDE];
#pragma unroll
		for (int i = 0; i < MICRO; i++)
#pragma unroll
			for (int j = 0; j < MICRO; j++)
				acc[i][j] += part[i][j];
		__syncthreads();
	}
	for (int i = 0; i < MICRO; i++)
		for (int j = 0; j < MICRO; j++) {
			int r = row0 + ty + i * SIDE, c = col0 + tx + j * SIDE;
			if (!checked || (r < M && c < N))
				C[(size_t)r * N + c] = __float2bfloat16(acc[i][j]);
		}
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N, int K,
			 cudaStream_t stream)
{
	bool vectors = M % VEC == 0 && N % VEC == 0 && K % VEC == 0;
	dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
	matmul<<<grid, THREADS, 0, stream>>>(A, B, C, M, N, K, !vectors);
	return cudaGetLastError() != cudaSuccess;
}
