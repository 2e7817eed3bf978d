/* Warpgroup MMA (wgmma, sm_90a), bf16 in, fp32 accumulate: descriptors for 128-byte-swizzled shared tiles, fence /
 * commit / wait, and m64nNk16 (N = 8, 64, 128, 256) with A from registers or from shared memory (K-major, or MN-major
 * [K][M] rows read transposed) and B K-major ([N][K] rows) or MN-major ([K][N] rows). `accumulate` = 0 overwrites the
 * accumulator. d[i] of a 64xN accumulator holds row
 * 16*warp + lane/4 + 8*((i/2)%2), column 8*(i/4) + 2*(lane%4) + i%2 (warp within the warpgroup). */
#pragma once
#include "tma.cuh"
#include "mma.cuh"

namespace kf {

constexpr int WG_M = 64, WG_K = 16;                /* rows and depth of one wgmma instruction */

template <int N> struct rt_wg { float d[WG_M * N / WARPGROUP]; };  /* thread's share of a 64xN fp32 tile */

template <int N> __device__ __forceinline__ void zero(rt_wg<N> &dst) {
#pragma unroll
    for (int i = 0; i < WG_M * N / WARPGROUP; ++i) dst.d[i] = 0.0f;
}

/* A 64x16 bf16 A operand in registers: the mma.sync m16n8k16 A layout of each warp's 16 rows. */
struct rt_wg_a { uint32_t r[4]; };

enum wg_b_major { WG_B_K_MAJOR = 0, WG_B_MN_MAJOR = 1 };   /* the instruction's trans-b flag */
enum wg_a_major { WG_A_K_MAJOR = 0, WG_A_MN_MAJOR = 1 };   /* its trans-a flag (A from shared memory only) */

constexpr uint64_t DESC_SWIZZLE_128B = 1ull << 62;

__device__ __forceinline__ uint64_t desc_field(uint32_t bytes) { return (bytes & 0x3FFFF) >> 4; }

/* K-major operand: rows of 64 bf16 (128 bytes, swizzled), 8-row groups 1024 bytes apart. */
__device__ __forceinline__ uint64_t desc_k_major(const void *tile) {
    return desc_field(smem_addr(tile)) | desc_field(TILE) << 16 | desc_field(SWIZZLE_ATOM_BYTES) << 32 |
           DESC_SWIZZLE_128B;
}

/* MN-major operand (A or B): 64-column chunks of 128-byte rows, chunk_bytes apart; 8-row (k) groups 1024 bytes apart. */
__device__ __forceinline__ uint64_t desc_mn_major(const void *tile, uint32_t chunk_bytes) {
    return desc_field(smem_addr(tile)) | desc_field(chunk_bytes) << 16 | desc_field(SWIZZLE_ATOM_BYTES) << 32 |
           DESC_SWIZZLE_128B;
}

/* Orders earlier register and shared-memory accesses before the wgmmas issued next. */
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

/* Pins the accumulator registers here: ordinary writes to them (zeroing, scaling) stay on their side of this point,
 * out of the window in which wgmmas own them (ptxas serialises the wgmmas otherwise, warning C7515). */
template <int N> __device__ __forceinline__ void wgmma_fence_operand(rt_wg<N> &acc) {
#pragma unroll
    for (int i = 0; i < WG_M * N / WARPGROUP; ++i) asm volatile("" : "+f"(acc.d[i])::"memory");
}

/* Warp specialisation: a warpgroup hands registers back (dec) or claims them (inc); counts are multiples of 8 and the
 * block's total must fit the register file. */
template <int REGS> __device__ __forceinline__ void warpgroup_regs_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS> __device__ __forceinline__ void warpgroup_regs_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

/* A barrier among the threads of one warpgroup (hardware barrier `id`, 1 to 15; 0 is __syncthreads'). */
__device__ __forceinline__ void warpgroup_sync(int id) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(WARPGROUP)); }

/* Waits until at most `pending` committed groups are still running. */
template <int pending>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
}

/* Operand lists of the accumulator registers, in the instruction's order. */
#define KF_WG_D4(d) "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
#define KF_WG_D8(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                       "+f"(d[i + 6]), "+f"(d[i + 7])
#define KF_WG_D32(d, i) KF_WG_D8(d, i), KF_WG_D8(d, i + 8), KF_WG_D8(d, i + 16), KF_WG_D8(d, i + 24)
#define KF_WG_D64(d) KF_WG_D32(d, 0), KF_WG_D32(d, 32)
#define KF_WG_D128(d) KF_WG_D32(d, 0), KF_WG_D32(d, 32), KF_WG_D32(d, 64), KF_WG_D32(d, 96)
#define KF_WG_REGS4 "%0, %1, %2, %3"
#define KF_WG_REGS32 \
    "%0, %1, %2, %3, %4, %5, %6, %7, " \
    "%8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, " \
    "%24, %25, %26, %27, %28, %29, %30, %31"
#define KF_WG_REGS64 KF_WG_REGS32 ", " \
    "%32, %33, %34, %35, %36, %37, %38, %39, " \
    "%40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, " \
    "%56, %57, %58, %59, %60, %61, %62, %63"
#define KF_WG_REGS128 KF_WG_REGS64 ", " \
    "%64, %65, %66, %67, %68, %69, %70, %71, " \
    "%72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, " \
    "%88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, " \
    "%104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, " \
    "%120, %121, %122, %123, %124, %125, %126, %127"
#define KF_WG_INSN(SHAPE, REGS, TAIL, ACC_OP) \
    "{\n .reg .pred p;\n setp.ne.b32 p, " ACC_OP ", 0;\n wgmma.mma_async.sync.aligned." SHAPE \
    ".f32.bf16.bf16 {" REGS "}, " TAIL ";\n}\n"

/* dst (+)= a @ b, a 64x16 (K-major, or MN-major with AMAJ) and b 16xN in shared memory (descriptors). */
template <int BMAJ, int N, int AMAJ = WG_A_K_MAJOR>
__device__ __forceinline__ void wgmma(rt_wg<N> &dst, uint64_t a, uint64_t b, int accumulate) {
    static_assert(N == 8 || N == 64 || N == 128 || N == 256, "wgmma tiles here are 8, 64, 128 or 256 wide");
    float *d = dst.d;
    if constexpr (N == 8)
        asm volatile(KF_WG_INSN("m64n8k16", KF_WG_REGS4, "%4, %5, p, 1, 1, %7, %8", "%6")
                     : KF_WG_D4(d) : "l"(a), "l"(b), "r"(accumulate), "n"(AMAJ), "n"(BMAJ));
    else if constexpr (N == 64)
        asm volatile(KF_WG_INSN("m64n64k16", KF_WG_REGS32, "%32, %33, p, 1, 1, %35, %36", "%34")
                     : KF_WG_D32(d, 0) : "l"(a), "l"(b), "r"(accumulate), "n"(AMAJ), "n"(BMAJ));
    else if constexpr (N == 128)
        asm volatile(KF_WG_INSN("m64n128k16", KF_WG_REGS64, "%64, %65, p, 1, 1, %67, %68", "%66")
                     : KF_WG_D64(d) : "l"(a), "l"(b), "r"(accumulate), "n"(AMAJ), "n"(BMAJ));
    else
        asm volatile(KF_WG_INSN("m64n256k16", KF_WG_REGS128, "%128, %129, p, 1, 1, %131, %132", "%130")
                     : KF_WG_D128(d) : "l"(a), "l"(b), "r"(accumulate), "n"(AMAJ), "n"(BMAJ));
}

/* dst (+)= a @ b, a 64x16 from registers, b 16xN in shared memory. The registers of a must stay untouched until
 * the instruction has completed (wgmma_wait). */
template <int BMAJ, int N>
__device__ __forceinline__ void wgmma(rt_wg<N> &dst, const rt_wg_a &a, uint64_t b, int accumulate) {
    static_assert(N == 8 || N == 64 || N == 128 || N == 256, "wgmma tiles here are 8, 64, 128 or 256 wide");
    float *d = dst.d;
    if constexpr (N == 8)
        asm volatile(KF_WG_INSN("m64n8k16", KF_WG_REGS4, "{%4, %5, %6, %7}, %8, p, 1, 1, %10", "%9")
                     : KF_WG_D4(d)
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "l"(b), "r"(accumulate), "n"(BMAJ));
    else if constexpr (N == 64)
        asm volatile(KF_WG_INSN("m64n64k16", KF_WG_REGS32, "{%32, %33, %34, %35}, %36, p, 1, 1, %38", "%37")
                     : KF_WG_D32(d, 0)
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "l"(b), "r"(accumulate), "n"(BMAJ));
    else if constexpr (N == 128)
        asm volatile(KF_WG_INSN("m64n128k16", KF_WG_REGS64, "{%64, %65, %66, %67}, %68, p, 1, 1, %70", "%69")
                     : KF_WG_D64(d)
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "l"(b), "r"(accumulate), "n"(BMAJ));
    else
        asm volatile(KF_WG_INSN("m64n256k16", KF_WG_REGS128, "{%128, %129, %130, %131}, %132, p, 1, 1, %134", "%133")
                     : KF_WG_D128(d)
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "l"(b), "r"(accumulate), "n"(BMAJ));
}

#undef KF_WG_INSN
#undef KF_WG_REGS128
#undef KF_WG_REGS64
#undef KF_WG_REGS32
#undef KF_WG_REGS4
#undef KF_WG_D128
#undef KF_WG_D64
#undef KF_WG_D32
#undef KF_WG_D8
#undef KF_WG_D4

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&v);
}

/* The A operand for key step kk (columns 16kk..16kk+15 of a 64xN accumulator), rounded to bf16: the accumulator
 * layout and the register-A layout coincide, so this is a repack with no shuffles. */
template <int N>
__device__ __forceinline__ void to_a(rt_wg_a &dst, const rt_wg<N> &src, int kk) {
    const float *p = src.d + 8 * kk;
    dst.r[0] = pack_bf16(p[0], p[1]);
    dst.r[1] = pack_bf16(p[2], p[3]);
    dst.r[2] = pack_bf16(p[4], p[5]);
    dst.r[3] = pack_bf16(p[6], p[7]);
}

/* Lane's ldmatrix row address for the A operand of key step kk from a 128-byte-swizzled K-major tile whose rows are
 * 128 bytes (64 bf16): rows 16*warp .. +15 of the warpgroup's 64, columns 16kk .. +15. */
__device__ __forceinline__ uint32_t swizzled_a_row(const uint8_t *tile, int kk) {
    const int lane = threadIdx.x % WARP, warp = (threadIdx.x / WARP) % (WARPGROUP / WARP);
    const int row = 16 * warp + lane % 16, chunk = 2 * kk + lane / 16;
    return smem_addr(tile + swizzle128(row, chunk));
}

/* The A operand of key step kk, straight from a swizzled K-major tile in shared memory. */
__device__ __forceinline__ void load_a(rt_wg_a &dst, const uint8_t *tile, int kk) {
    ldsm_x4(dst.r, swizzled_a_row(tile, kk));
}

} /* namespace kf */
