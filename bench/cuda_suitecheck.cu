/* Standalone checker and benchmark for the task suite's CUDA references, driven by the task specs themselves:
 * kforge's loader reads tasks/levelN/NAME.json, kforge's sampler draws the inputs, and the reference runs as kforge
 * runs a candidate (NAME/ref.so: the .cu compiled against its generated kf_task.h and linked with the generated
 * shim). Each reference is compared with the task's fp64 oracle (NAME/oracle.so) under the task's tolerance on every
 * test, ragged and hidden shape, every stress variant on the test shapes, and the first test and ragged shapes with
 * misaligned pointers; then timed at the CUDA bench shape (events, L2 flushed, median) against the measured copy
 * bandwidth, or against cuBLAS: the task's own cuBLAS baseline on its buffers when its spec names one and it is a
 * plain GEMM, the same GEMMs on their own operands when it is a GEMM with more work around it (level 2/3), or a FLOP
 * target (attention); the tables are bench/cuda_check_common.cuh's. Each task runs in a child process, so a crash or
 * hang still leaves a table row. Built and run by bench/cuda_suitecheck.sh; not part of the Makefile.
 * Exit status: 0 all checks pass, 1 a check failed, 2 usage, 3 setup error. */
#include <dlfcn.h>
#include <cmath>
#include <thread>
#include "cuda_check_common.cuh"

extern "C" {
#include "common/buf.h"
#include "common/err.h"
#include "common/fs.h"
#include "common/rng.h"
#include "eval/tasks/abi.h"
#include "eval/judge/compare.h"
#include "eval/tasks/task.h"
#include "eval/tasks/tensor.h"
}

static const int CHILD_TIMEOUT_S = 240;            /* a hung kernel ends its child, not the run */
static const double TARGET = 0.70;                 /* of copy bandwidth, or of cuBLAS */
static const uint64_t SEED = 20261122;
static const int UNWRITTEN_BYTE = 0xFF;            /* NaN in f32 and bf16, -1 in i32: never a valid output here */
static const int UNWRITTEN_BYTE2 = 0x00;           /* the bench shape's second fill: i8, u8 and fp4 outputs have no
                                                      byte that is not a value, so an element is unwritten when it
                                                      holds the fill after two calls with different fills */
static const int FILL_THREADS = 16;
static const long long FILL_CHUNK = 1ll << 22;     /* elements per independently seeded fill chunk */

enum unit { UNIT_BYTES, UNIT_FLOPS };

/* One table row, sent from a child to the parent over a pipe. */
struct result_row {
    char task[48], shape[64], baseline[32];
    double time_ms, work, baseline_ms;   /* work: bytes (UNIT_BYTES) or flops at the bench shape */
    double target_tflops;                /* a FLOP-rate target instead of a baseline */
    int unit, passed, total;
};

struct task_so {
    kf_shim_call_fn ref = nullptr, oracle = nullptr;
    kf_shim_call_fn vendor = nullptr;   /* NAME/vendor.so: reference_kernels/vendor/BASELINE.cu, when built */
};

struct ctx {
    const char *dir = nullptr;     /* the build directory: DIR/NAME/ref.so, DIR/NAME/oracle.so */
    bool quick = false;            /* small shapes only, no benchmark (for compute-sanitizer) */
    kfc::timer timer;
    cudaStream_t stream = nullptr; /* timer.stream */
    cublasHandle_t blas = nullptr;
    struct kf_sampler *sampler = nullptr;
    uint64_t trial = 0;
    int passed = 0, total = 0;
};

#define CUDA_OK KFC_CUDA_OK
using kfc::die_cuda;

static void die(const char *fmt, const char *a, const char *b = "") {
    fprintf(stderr, "cuda_suitecheck: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    exit(kfc::EXIT_SETUP);
}

/* ---- the task's tensors at one shape: host copies, device copies, doubles for the oracle ---- */
struct tensors {
    int n = 0;
    int64_t numel[KF_MAX_TENSORS] = {};
    size_t bytes[KF_MAX_TENSORS] = {};
    char *dev[KF_MAX_TENSORS] = {};      /* allocation; the kernel sees dev + offset */
    size_t offset[KF_MAX_TENSORS] = {};
    long long ints[KF_TASK_MAX_INTS] = {};   /* the symbols, then the scalar parameters */
    void *args[KF_MAX_TENSORS] = {};         /* the tensors, then the workspace when the spec has one */
    char *workspace = nullptr;

    tensors(const kf_task *t, const kf_shape *s, bool misalign) {
        n = t->n_inputs + t->n_outputs;
        kf_task_call_ints(t, s, ints);
        for (int i = 0; i < n; ++i) {
            numel[i] = kf_task_numel(t, i, s);
            bytes[i] = (size_t)numel[i] * kf_dtype_size(t->tensors[i].dtype);
            offset[i] = misalign ? kf_dtype_size(t->tensors[i].dtype) : 0;   /* one element: off 16-byte alignment */
            CUDA_OK(cudaMalloc(&dev[i], bytes[i] + offset[i]));
            args[i] = dev[i] + offset[i];
        }
        if (kf_task_n_bufs(t, KF_BACKEND_CUDA) > n) {   /* cudaMalloc's alignment is the ABI's (256 bytes) */
            CUDA_OK(cudaMalloc(&workspace, (size_t)kf_task_workspace(t, s) + 1));
            CUDA_OK(cudaMemset(workspace, UNWRITTEN_BYTE, (size_t)kf_task_workspace(t, s) + 1));
            args[n] = workspace;
        }
    }
    ~tensors() {
        for (int i = 0; i < n; ++i) cudaFree(dev[i]);
        cudaFree(workspace);
    }
    tensors(const tensors &) = delete;
    tensors &operator=(const tensors &) = delete;
};

static std::vector<char> to_host(ctx &c, const void *src, size_t bytes) {
    std::vector<char> h(bytes);
    CUDA_OK(cudaStreamSynchronize(c.stream));
    CUDA_OK(cudaMemcpy(h.data(), src, bytes, cudaMemcpyDeviceToHost));
    return h;
}

static void record(ctx &c, bool ok, const char *label, const char *detail) {
    c.total++;
    c.passed += ok;
    printf("  %-4s %-58s %s\n", ok ? "ok" : "FAIL", label, detail);
    fflush(stdout);
}

static int call_reference(ctx &c, const task_so &so, tensors &x) {
    const int rc = so.ref(x.args, x.ints, c.stream);
    const cudaError_t e = cudaStreamSynchronize(c.stream);
    if (e != cudaSuccess) die_cuda(e, "reference kernel", __LINE__);   /* sticky: the child cannot go on */
    return rc;
}

/* One correctness trial: fresh inputs from the task's distributions (or a stress variant's), poisoned outputs,
 * the reference on the device, the oracle on the host, every output compared and every input checked unchanged. */
static void check_shape(ctx &c, const kf_task *t, const task_so &so, const kf_shape *s, const kf_stress *st,
                        bool misalign, const char *what) {
    tensors x(t, s, misalign);
    std::vector<std::vector<char>> host(x.n);
    std::vector<std::vector<double>> exact(x.n);
    kf_rng rng;
    kf_rng_seed(&rng, SEED + c.trial++);
    for (int i = 0; i < x.n; ++i) {
        const kf_tensor *ten = &t->tensors[i];
        host[i].resize(x.bytes[i]);
        exact[i].resize((size_t)x.numel[i]);
        if (ten->is_output) {
            kf_tensor_poison(ten->dtype, host[i].data(), x.numel[i]);
        } else {
            const kf_dist d = kf_task_dist(t, i, st, s);
            kf_tensor_fill(c.sampler, &rng, &d, ten->dtype, host[i].data(), x.numel[i]);
            kf_tensor_to_double(ten->dtype, host[i].data(), exact[i].data(), x.numel[i]);
        }
        CUDA_OK(cudaMemcpy(x.args[i], host[i].data(), x.bytes[i], cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaDeviceSynchronize());   /* the copies ran on the legacy stream, which c.stream does not wait for */
    kf_buf label = KF_BUF_INIT;
    kf_buf_addf(&label, "%s ", what);
    kf_task_shape_format(t, s, &label);
    if (st) kf_buf_addf(&label, " stress %s", st->name);
    if (misalign) kf_buf_adds(&label, " misaligned");

    const int rc = call_reference(c, so, x);
    std::vector<double *> oracle_args(x.n);
    for (int i = 0; i < x.n; ++i) oracle_args[i] = exact[i].data();
    if (so.oracle((void *const *)oracle_args.data(), x.ints, nullptr) != 0) die("%s: oracle failed", t->name);

    char detail[160] = "";
    bool ok = rc == 0;
    if (!ok) snprintf(detail, sizeof detail, "kf_launch returned %d", rc);
    for (int i = 0; i < x.n && ok; ++i) {
        const kf_tensor *ten = &t->tensors[i];
        const std::vector<char> got = to_host(c, x.args[i], x.bytes[i]);
        if (!ten->is_output) {
            ok = memcmp(got.data(), host[i].data(), x.bytes[i]) == 0;
            if (!ok) snprintf(detail, sizeof detail, "input %s was written", ten->name);
            continue;
        }
        kf_cmp cmp;
        kf_compare(ten->dtype, got.data(), exact[i].data(), x.numel[i], kf_task_tolerance(t, i), &cmp);
        ok = cmp.pass;
        if (ok)
            snprintf(detail, sizeof detail, "%s: max_abs %.3g margin %.3g", ten->name, cmp.max_abs, cmp.margin);
        else
            snprintf(detail, sizeof detail, "%s: %lld bad, first [%lld] got %.9g want %.9g", ten->name,
                     (long long)cmp.n_bad, (long long)cmp.first_bad, cmp.got, cmp.want);
    }
    record(c, ok, label.data, detail);
    kf_buf_free(&label);
}

static void check_correctness(ctx &c, const kf_task *t, const task_so &so) {
    for (int set = KF_SET_TEST; set < KF_SET_COUNT; ++set)
        for (int k = 0; k < t->n_shapes[set]; ++k)
            check_shape(c, t, so, &t->shapes[set][k], nullptr, false, kf_shape_set_name((kf_shape_set)set));
    for (int st = 0; st < t->n_stress; ++st)
        for (int k = 0; k < t->n_shapes[KF_SET_TEST]; ++k)
            check_shape(c, t, so, &t->shapes[KF_SET_TEST][k], &t->stress[st], false, "test");
    check_shape(c, t, so, &t->shapes[KF_SET_TEST][0], nullptr, true, "test");
    check_shape(c, t, so, &t->shapes[KF_SET_RAGGED][0], nullptr, true, "ragged");
}

/* ---- vendor baselines: cuBLAS doing the task's operation on the task's buffers (row-major through the
 * column-major API: C = A B is C^T = B^T A^T) ---- */
typedef cublasStatus_t (*baseline_fn)(cublasHandle_t, void *const *bufs, const long long *ints);

static const float ONE = 1.0f, ZERO = 0.0f;

static cublasStatus_t gemm_bf16(cublasHandle_t h, void *const *b, const long long *s) {   /* A B, [M N K] */
    return kfc::gemm_bf16(h, (const __nv_bfloat16 *)b[0], (const __nv_bfloat16 *)b[1], (__nv_bfloat16 *)b[2], s[0],
                          s[1], s[2]);
}

static cublasStatus_t gemm_bf16_nt(cublasHandle_t h, void *const *b, const long long *s) {   /* A B^T, B [N][K] */
    const int M = (int)s[0], N = (int)s[1], K = (int)s[2];
    return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &ONE, b[1], CUDA_R_16BF, K, b[0], CUDA_R_16BF, K, &ZERO,
                        b[2], CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

static cublasStatus_t gemm_bf16_batched(cublasHandle_t h, void *const *b, const long long *s) {   /* [batch M N K] */
    const int batch = (int)s[0], M = (int)s[1], N = (int)s[2], K = (int)s[3];
    return cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &ONE, b[1], CUDA_R_16BF, N,
                                      (long long)K * N, b[0], CUDA_R_16BF, K, (long long)M * K, &ZERO, b[2],
                                      CUDA_R_16BF, N, (long long)M * N, batch, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT);
}

static cublasStatus_t sgemm(cublasHandle_t h, void *const *b, const long long *s) {   /* fp32, no tf32 */
    const int M = (int)s[0], N = (int)s[1], K = (int)s[2];
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &ONE, b[1], CUDA_R_32F, N, b[0], CUDA_R_32F, K, &ZERO,
                        b[2], CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

struct baseline { const char *name; baseline_fn run; };
static const baseline BASELINES[] = {
    {"cublas_gemm_bf16", gemm_bf16}, {"cublas_gemm_bf16_nt", gemm_bf16_nt},
    {"cublas_gemm_bf16_batched", gemm_bf16_batched}, {"cublas_sgemm", sgemm},
};

static baseline_fn find_baseline(const char *name) {
    for (const baseline &b : BASELINES)
        if (!strcmp(b.name, name)) return b.run;
    return nullptr;
}

/* Bench-size inputs: chunks seeded independently, drawn on FILL_THREADS threads, then copied up. */
static void fill_large(ctx &c, const kf_tensor *ten, const kf_dist *d, void *dev, int64_t numel) {
    const size_t elem = kf_dtype_size(ten->dtype);
    std::vector<char> host((size_t)numel * elem);
    const int64_t chunks = (numel + FILL_CHUNK - 1) / FILL_CHUNK;
    std::vector<std::thread> pool;
    for (int w = 0; w < FILL_THREADS; ++w)
        pool.emplace_back([&, w] {
            struct kf_sampler *s = kf_sampler_new();
            for (int64_t k = w; k < chunks; k += FILL_THREADS) {
                kf_rng rng;
                kf_rng_seed(&rng, SEED ^ (uint64_t)(k * 0x9e3779b97f4a7c15ull));
                const int64_t first = k * FILL_CHUNK, n = std::min<int64_t>(FILL_CHUNK, numel - first);
                kf_tensor_fill(s, &rng, d, ten->dtype, host.data() + first * elem, n);
            }
            kf_sampler_free(s);
        });
    for (std::thread &th : pool) th.join();
    CUDA_OK(cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice));
}

/* Elements that held each call's fill byte after it (got: after the UNWRITTEN_BYTE fill, got2: UNWRITTEN_BYTE2). */
static int64_t count_unwritten(const std::vector<char> &got, const std::vector<char> &got2, size_t elem) {
    int64_t n = 0;
    for (size_t i = 0; i < got.size(); i += elem) {
        bool all = true;
        for (size_t b = 0; b < elem; ++b)
            all &= (unsigned char)got[i + b] == UNWRITTEN_BYTE && (unsigned char)got2[i + b] == UNWRITTEN_BYTE2;
        n += all;
    }
    return n;
}

/* The GEMMs of a kfc::GEMM_WORK entry at shape s. */
static std::vector<kfc::gemm_shape> task_gemms(const kf_task *t, const kf_shape *s, const kfc::gemm_work &work) {
    std::vector<kfc::gemm_shape> out;
    for (const char *g : work.gemms) {
        if (!g) break;
        int64_t v[3];
        std::string text = g;
        for (int i = 0; i < 3; ++i) {
            const size_t comma = text.find(',');
            kf_err err = {};
            if (kf_task_eval(t, text.substr(0, comma).c_str(), s, &v[i], &err) != KF_OK)
                die("%s: %s", t->name, err.msg);
            text = comma == std::string::npos ? "" : text.substr(comma + 1);
        }
        out.push_back({v[0], v[1], v[2]});
    }
    return out;
}

static void run_bench(ctx &c, const kf_task *t, const task_so &so, result_row &row) {
    const kf_shape *s = &t->bench[KF_BACKEND_CUDA];
    tensors x(t, s, false);
    for (int i = 0; i < t->n_inputs; ++i) {
        const kf_dist d = kf_task_dist(t, i, nullptr, s);
        fill_large(c, &t->tensors[i], &d, x.args[i], x.numel[i]);
    }
    std::vector<std::vector<char>> got[2];
    int rc = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = t->n_inputs; i < x.n; ++i)
            CUDA_OK(cudaMemset(x.args[i], pass ? UNWRITTEN_BYTE2 : UNWRITTEN_BYTE, x.bytes[i]));
        CUDA_OK(cudaDeviceSynchronize());   /* those ran on the legacy stream, which c.stream does not wait for */
        rc |= call_reference(c, so, x);
        for (int i = t->n_inputs; i < x.n; ++i) got[pass].push_back(to_host(c, x.args[i], x.bytes[i]));
    }
    char detail[160];
    for (int i = t->n_inputs; i < x.n; ++i) {
        const int64_t unwritten = count_unwritten(got[0][i - t->n_inputs], got[1][i - t->n_inputs],
                                                  kf_dtype_size(t->tensors[i].dtype));
        snprintf(detail, sizeof detail, "rc %d, %lld of %lld elements of %s unwritten", rc, (long long)unwritten,
                 (long long)x.numel[i], t->tensors[i].name);
        record(c, rc == 0 && unwritten == 0, "bench shape: every output written", detail);
    }
    const kfc::gemm_work *work = kfc::find_gemm_work(t->name);
    row.target_tflops = kfc::flop_target_of(t->name);
    const bool by_flops = t->vendor_baseline || work || row.target_tflops > 0;
    row.work = by_flops ? kf_task_flops(t, s) : kf_task_bytes(t, s);
    row.unit = by_flops ? UNIT_FLOPS : UNIT_BYTES;
    row.time_ms = c.timer.median_ms([&] {
        if (so.ref(x.args, x.ints, c.stream) != 0) die("%s: kf_launch failed while timing", t->name);
    });
    if (work) {
        snprintf(row.baseline, sizeof row.baseline, "cuBLAS, same GEMMs");
        row.baseline_ms = kfc::gemms_ms(c.timer, c.blas, task_gemms(t, s, *work));
        return;
    }
    if (!t->vendor_baseline) return;

    const baseline_fn base = find_baseline(t->vendor_baseline);
    if (!base && !so.vendor) die("%s: no baseline called %s in this checker or built", t->name, t->vendor_baseline);
    snprintf(row.baseline, sizeof row.baseline, "%s", t->vendor_baseline);
    /* The baseline writes its own copies of the outputs; the reference's must agree with them. A built vendor
     * kernel (reference_kernels/vendor/) is called through its shim like the reference, workspace included. */
    const auto run_base = [&](void *const *a) {
        return base ? base(c.blas, a, x.ints) == CUBLAS_STATUS_SUCCESS
                    : so.vendor(a, x.ints, c.stream) == 0 && cudaStreamSynchronize(c.stream) == cudaSuccess;
    };
    std::vector<char *> vendor_out(x.n, nullptr);
    void *args[KF_MAX_TENSORS];
    for (int i = 0; i < kf_task_n_bufs(t, KF_BACKEND_CUDA); ++i) {
        args[i] = x.args[i];
        if (i < t->n_inputs || i >= x.n) continue;
        CUDA_OK(cudaMalloc(&vendor_out[i], x.bytes[i]));
        args[i] = vendor_out[i];
    }
    if (!run_base(args)) die("%s: %s failed", t->name, t->vendor_baseline);
    for (int i = t->n_inputs; i < x.n; ++i) {
        const kf_tensor *ten = &t->tensors[i];
        const std::vector<char> mine = to_host(c, x.args[i], x.bytes[i]), theirs = to_host(c, args[i], x.bytes[i]);
        std::vector<double> want((size_t)x.numel[i]);
        kf_tensor_to_double(ten->dtype, theirs.data(), want.data(), x.numel[i]);
        kf_cmp cmp;
        kf_compare(ten->dtype, mine.data(), want.data(), x.numel[i], kf_task_tolerance(t, i), &cmp);
        snprintf(detail, sizeof detail, "%s: %lld bad, max_abs %.3g margin %.3g", ten->name, (long long)cmp.n_bad,
                 cmp.max_abs, cmp.margin);
        record(c, cmp.pass, "bench shape: agrees with the vendor baseline", detail);
    }
    row.baseline_ms = c.timer.median_ms([&] {
        if (!run_base(args)) die("%s: %s failed while timing", t->name, t->vendor_baseline);
    });
    for (char *p : vendor_out) cudaFree(p);
}

static void load_task_so(const ctx &c, const char *name, task_so &so) {
    std::string base = std::string(c.dir) + "/" + name + "/";
    void *ref = dlopen((base + "ref.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    void *oracle = dlopen((base + "oracle.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!ref || !oracle) die("%s: %s (build it with bench/cuda_suitecheck.sh)", name, dlerror());
    so.ref = (kf_shim_call_fn)dlsym(ref, KF_SHIM_CALL_SYMBOL);
    so.oracle = (kf_shim_call_fn)dlsym(oracle, KF_ORACLE_CALL_SYMBOL);
    if (!so.ref || !so.oracle) die("%s: %s", name, "a shared object lacks its shim entry point");
    if (void *vendor = dlopen((base + "vendor.so").c_str(), RTLD_NOW | RTLD_LOCAL))
        so.vendor = (kf_shim_call_fn)dlsym(vendor, KF_SHIM_CALL_SYMBOL);
}

static void ctx_open(ctx &c) {
    c.timer.open();
    c.stream = c.timer.stream;
    c.blas = kfc::blas_open(c.stream);
    c.sampler = kf_sampler_new();
}

/* The ceiling row: a 1 GiB device-to-device copy, bytes read plus bytes written. */
static void run_copy(ctx &c, std::vector<result_row> &rows) {
    result_row row = {};
    snprintf(row.task, sizeof row.task, "d2d_copy");
    snprintf(row.shape, sizeof row.shape, "1 GiB");
    row.time_ms = c.timer.copy_ms();
    row.work = 2.0 * kfc::COPY_BYTES;
    row.unit = UNIT_BYTES;
    rows.push_back(row);
}

static void run_task(const char *dir, const char *name, bool quick, std::vector<result_row> &rows) {
    ctx c;
    c.dir = dir;
    c.quick = quick;
    ctx_open(c);
    printf("== %s\n", name);
    fflush(stdout);
    if (!strcmp(name, "ceilings")) {
        if (!quick) run_copy(c, rows);
        return;
    }
    kf_task *t = nullptr;
    kf_err err = {};
    if (kf_task_find(nullptr, name, &t, &err) != KF_OK) die("%s", err.msg);
    if (!kf_task_has_backend(t, KF_BACKEND_CUDA)) die("%s: no CUDA reference", name);
    task_so so;
    load_task_so(c, name, so);
    result_row row = {};
    snprintf(row.task, sizeof row.task, "%s", name);
    kf_buf shape = KF_BUF_INIT;
    kf_task_shape_format(t, &t->bench[KF_BACKEND_CUDA], &shape);
    snprintf(row.shape, sizeof row.shape, "%s", quick ? "-" : shape.data);
    kf_buf_free(&shape);
    check_correctness(c, t, so);
    if (!quick) run_bench(c, t, so, row);
    row.passed = c.passed;
    row.total = c.total;
    rows.push_back(row);
    kf_task_free(t);
}

/* Runs one task in a child; its rows come back over a pipe. A child that dies leaves a row saying how. */
static void run_task_forked(const char *dir, const char *name, bool quick, std::vector<result_row> &rows) {
    kfc::run_in_child<result_row>(CHILD_TIMEOUT_S, rows, [&](std::vector<result_row> &mine) {
        run_task(dir, name, quick, mine);
    }, [&](const char *how) {
        result_row r;
        memset(&r, 0, sizeof r);
        snprintf(r.task, sizeof r.task, "%s", name);
        snprintf(r.shape, sizeof r.shape, "%s", how);
        r.total = 1;     /* counts as a failed check */
        return r;
    });
}

static double rate(double work, double ms) { return ms > 0 ? work / (ms * 1e-3) : 0.0; }

static void format_rate(char *dst, size_t n, double r, int unit) {
    if (r <= 0) snprintf(dst, n, "-");
    else snprintf(dst, n, unit == UNIT_BYTES ? "%.3f TB/s" : "%.1f TFLOP/s", r * 1e-12);
}

/* Prints the table last; returns 0 when every check passed. */
static int print_table(const std::vector<result_row> &rows) {
    double copy_bps = 0.0;
    for (const result_row &r : rows)
        if (!strcmp(r.task, "d2d_copy")) copy_bps = rate(r.work, r.time_ms);
    int failed = 0;
    printf("\n%-24s %-30s %9s %14s %16s %9s %s\n", "task", "shape", "time_ms", "achieved", "% of ceiling", "target",
           "check");
    for (const result_row &r : rows) {
        char time_ms[16] = "-", achieved[32], pct[32] = "-", tgt[16] = "-", check[32] = "-";
        if (r.time_ms > 0) snprintf(time_ms, sizeof time_ms, "%.4f", r.time_ms);
        format_rate(achieved, sizeof achieved, rate(r.work, r.time_ms), r.unit);
        double frac = 0.0, target = TARGET;
        const char *of = "copy";
        if (!strcmp(r.task, "d2d_copy")) {
            snprintf(pct, sizeof pct, "(ceiling)");
        } else if (r.baseline_ms > 0) {
            frac = r.baseline_ms / r.time_ms;
            of = "cuBLAS";
        } else if (r.target_tflops > 0 && r.time_ms > 0) {
            frac = rate(r.work, r.time_ms) * 1e-12 / r.target_tflops;
            target = 1.0;
            of = "target";
        } else if (r.time_ms > 0 && copy_bps > 0 && r.unit == UNIT_BYTES && !kfc::has_no_baseline(r.task)) {
            frac = rate(r.work, r.time_ms) / copy_bps;
        }
        if (frac > 0) {
            snprintf(pct, sizeof pct, "%.1f%% %s", 100.0 * frac, of);
            snprintf(tgt, sizeof tgt, "%s%.0f%%", frac >= target ? "met " : "MISS ", 100.0 * target);
        }
        if (r.total > 0)
            snprintf(check, sizeof check, "%s %d/%d", r.passed == r.total ? "PASS" : "FAIL", r.passed, r.total);
        failed |= r.passed != r.total;
        printf("%-24s %-30s %9s %14s %16s %9s %s\n", r.task, r.shape, time_ms, achieved, pct, tgt, check);
        if (r.baseline_ms > 0) {
            char base_ms[16], base_rate[32];
            snprintf(base_ms, sizeof base_ms, "%.4f", r.baseline_ms);
            format_rate(base_rate, sizeof base_rate, rate(r.work, r.baseline_ms), r.unit);
            printf("  %-22s %-30s %9s %14s %16s %9s %s\n", r.baseline, "(same shape)", base_ms, base_rate, "(ceiling)",
                   "-", "-");
        }
    }
    return failed ? 1 : 0;
}

/* --emit-abi DIR TASK: writes the generated kf_task.h, shim.cu, kf_oracle.h and oracle_shim.c for TASK into DIR and
 * prints "CUDA_REFERENCE ORACLE [VENDOR]" (paths relative to kforge's home; VENDOR when the spec names a baseline
 * that reference_kernels/vendor/ has) for the build script. */
static int emit_abi(const char *dir, const char *name) {
    kf_task *t = nullptr;
    kf_err err = {};
    if (kf_task_find(nullptr, name, &t, &err) != KF_OK || kf_mkdir_p(dir, &err) != KF_OK) {
        fprintf(stderr, "cuda_suitecheck: %s\n", err.msg);
        return 2;
    }
    if (!kf_task_has_backend(t, KF_BACKEND_CUDA)) {
        fprintf(stderr, "cuda_suitecheck: %s has no CUDA reference\n", name);
        kf_task_free(t);
        return 2;
    }
    struct { const char *file; void (*gen)(const kf_task *, kf_buf *); } files[] = {
        {"kf_task.h", [](const kf_task *tk, kf_buf *b) { kf_abi_header(tk, KF_BACKEND_CUDA, b); }},
        {"shim.cu", [](const kf_task *tk, kf_buf *b) { kf_abi_shim(tk, KF_BACKEND_CUDA, b); }},
        {"kf_oracle.h", kf_abi_oracle_header},
        {"oracle_shim.c", kf_abi_oracle_shim},
    };
    int rc = 0;
    for (const auto &f : files) {
        kf_buf text = KF_BUF_INIT;
        f.gen(t, &text);
        const std::string path = std::string(dir) + "/" + f.file;
        if (kf_write_file(path.c_str(), text.data, text.len, &err) != KF_OK) {
            fprintf(stderr, "cuda_suitecheck: %s\n", err.msg);
            rc = 3;
        }
        kf_buf_free(&text);
    }
    char vendor[PATH_MAX] = "";
    if (kf_task_vendor_source(t, KF_BACKEND_CUDA, vendor, sizeof vendor) && access(vendor, R_OK) != 0) vendor[0] = 0;
    printf("%s %s %s\n", t->reference[KF_BACKEND_CUDA], t->oracle, vendor);
    kf_task_free(t);
    return rc;
}

/* Prints the name of every task that keep(task, arg) accepts, one per line. */
static int list_tasks(bool (*keep)(const kf_task *t, int arg), int arg) {
    kf_task **ts = nullptr;
    int n = 0;
    kf_err err = {};
    if (kf_task_list(nullptr, &ts, &n, &err) != KF_OK) {
        fprintf(stderr, "cuda_suitecheck: %s\n", err.msg);
        return 2;
    }
    for (int i = 0; i < n; ++i)
        if (keep(ts[i], arg)) printf("%s\n", ts[i]->name);
    kf_task_list_free(ts, n);
    return 0;
}

/* --list LEVEL: the tasks of that level that have a CUDA reference. */
static bool at_level(const kf_task *t, int level) {
    return t->level == level && kf_task_has_backend(t, KF_BACKEND_CUDA);
}

/* --list-generic: every task, whatever its level, whose CUDA reference is built on the generic op library
 * (reference_kernels/cuda/generic/): the references bench/cuda_fusioncheck.sh leaves to this checker. */
static bool on_generic_library(const kf_task *t, int) {
    if (!kf_task_has_backend(t, KF_BACKEND_CUDA)) return false;
    char path[PATH_MAX], *src = nullptr;
    size_t len = 0;
    kf_err err = {};
    kf_task_source_path(t, t->reference[KF_BACKEND_CUDA], path, sizeof path);
    bool generic = kf_read_file(path, 1 << 20, &src, &len, &err) == KF_OK && strstr(src, "cuda/generic/");
    free(src);
    return generic;
}

static void usage(void) {
    fprintf(stderr, "usage: cuda_suitecheck --dir DIR [--quick] [--no-fork] TASK...\n"
                    "       cuda_suitecheck --emit-abi DIR TASK\n"
                    "       cuda_suitecheck --list LEVEL\n"
                    "       cuda_suitecheck --list-generic\n"
                    "  --dir      where DIR/TASK/ref.so and DIR/TASK/oracle.so were built\n"
                    "  --quick    correctness on small shapes only, no benchmark (fits under compute-sanitizer)\n"
                    "  --no-fork  run tasks in this process (for compute-sanitizer)\n"
                    "  TASK       a task name, or 'ceilings' for the copy-bandwidth row\n");
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--emit-abi")) return emit_abi(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "--list")) return list_tasks(at_level, atoi(argv[2]));
    if (argc == 2 && !strcmp(argv[1], "--list-generic")) return list_tasks(on_generic_library, 0);
    bool quick = false, fork_tasks = true;
    const char *dir = nullptr;
    std::vector<const char *> names;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--no-fork")) fork_tasks = false;
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
        else if (argv[i][0] == '-') { usage(); return 2; }
        else names.push_back(argv[i]);
    }
    if (!dir || names.empty()) { usage(); return 2; }
    std::vector<result_row> rows;
    for (const char *name : names) {
        if (fork_tasks) run_task_forked(dir, name, quick, rows);
        else run_task(dir, name, quick, rows);
    }
    return print_table(rows);
}
