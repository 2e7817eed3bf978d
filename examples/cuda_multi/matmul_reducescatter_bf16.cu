/* Example candidate for matmul_reducescatter_bf16 (level 4): rank r computes its own row block of the sum
 * directly, out[r] = sum over ranks p of A[p][r] @ B[p], as one GEMM whose K runs over every rank's shard in
 * turn, the operands read from their owners over NVLink. No partial sums are exchanged and no rank waits for
 * another (the inputs are in place when the job starts); the weights cross NVLink instead. A shared-memory
 * tiled GEMM, 64x64 tiles, 4x4 per thread, fp32 accumulation, bounds-checked for any shape. */
#define TM 64
#define TN 64
#define TK 16

struct shards {
	const __nv_bfloat16 *A[8]; /* rank p's row block r: [m][k] */
	const __nv_bfloat16 *B[8]; /* rank p's [k][n] */
};

__global__ static void __launch_bounds__(256) gemm_over_ranks(struct shards s, __nv_bfloat16 *out, int world, int m,
                                                              int n, int k)
{
	__shared__ float a_tile[TK][TM + 1];
	__shared__ float b_tile[TK][TN];
	const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	const int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
	const long long depth = (long long)world * k;
	float acc[4][4] = {};
	for (long long l0 = 0; l0 < depth; l0 += TK) {
		for (int e = threadIdx.x; e < TM * TK; e += blockDim.x) {
			int rr = e / TK, ll = e % TK, row = row0 + rr;
			long long l = l0 + ll;
			a_tile[ll][rr] = row < m && l < depth ? __bfloat162float(s.A[l / k][(size_t)row * k + l % k]) : 0.0f;
		}
		for (int e = threadIdx.x; e < TK * TN; e += blockDim.x) {
			int ll = e / TN, cc = e % TN, col = col0 + cc;
			long long l = l0 + ll;
			b_tile[ll][cc] = l < depth && col < n ? __bfloat162float(s.B[l / k][(size_t)(l % k) * n + col]) : 0.0f;
		}
		__syncthreads();
		for (int ll = 0; ll < TK; ll++) {
			float a[4], b[4];
			for (int i = 0; i < 4; i++)
				a[i] = a_tile[ll][ty * 4 + i];
			for (int j = 0; j < 4; j++)
				b[j] = b_tile[ll][tx * 4 + j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			int row = row0 + ty * 4 + i, col = col0 + tx * 4 + j;
			if (row < m && col < n)
				out[(size_t)row * n + col] = __float2bfloat16(acc[i][j]);
		}
}

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *out, int world, int m, int n,
                         int k, const struct kf_comm *comm, cudaStream_t stream)
{
	(void)A, (void)B;
	struct shards s;
	for (int p = 0; p < world; p++) {
		s.A[p] = (const __nv_bfloat16 *)comm->peer[p].buf[0] + (size_t)comm->rank * m * k;
		s.B[p] = (const __nv_bfloat16 *)comm->peer[p].buf[1];
	}
	dim3 grid((n + TN - 1) / TN, (m + TM - 1) / TM);
	gemm_over_ranks<<<grid, 256, 0, stream>>>(s, out, world, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
