/* Standalone checker and benchmark for the level-2/3 CUDA references: each against its task's fp64 oracle on the
 * spec's test/ragged/hidden shapes, stress inputs, fast-path and misaligned shapes, then timed at its CUDA bench shape
 * (events, L2 flushed, median of 30) against copy bandwidth, cuBLAS on the same GEMMs, or the attention target. Task
 * data comes from the digest and adapters bench/cuda_fusioncheck.sh generates from the JSON specs. Exit status: 0 all
 * checks pass, 1 a check failed, 2 usage, 3 setup error. */
#include <cmath>
#include "cuda_check_common.cuh"
#include "fusion_adapters.h"   /* generated: kf_ref_* / kf_oracle_* prototypes and FC_ENTRIES */

typedef __nv_bfloat16 bf16;

static const int CHILD_TIMEOUT_S = 90;            /* a hung kernel ends its child, not the run */
static const int POISON_BYTE = 0xFF;              /* NaN in fp32 and bf16, -1 in i32: unwritten outputs fail */
static const double TIES_JITTER = 1e-3;           /* as eval/tasks/tensor.c draws near-ties */
static const int MAX_LINE = 4096;

enum dtype { DT_F32, DT_BF16, DT_F16, DT_I32, DT_COUNT };
static const char *const DTYPE_NAMES[DT_COUNT] = {"f32", "bf16", "f16", "i32"};
static const size_t DTYPE_BYTES[DT_COUNT] = {4, 2, 2, 4};
enum dist_kind { DIST_NORMAL, DIST_UNIFORM, DIST_TIES, DIST_INT, DIST_COUNT };
static const char *const DIST_NAMES[DIST_COUNT] = {"normal", "uniform", "ties", "int"};
enum base_kind { BASE_NONE, BASE_COPY, BASE_GEMM, BASE_TARGET };

struct dist { int kind = DIST_NORMAL; double a = 0, b = 1, c = 0; };
struct tensor { std::string name; int dtype = DT_F32; bool output = false; dist d; };
struct shape { std::string set; bool misaligned = false; std::vector<long long> v, numel, fan_in; double flops = 0, bytes = 0; };
struct stress { std::string name; std::vector<std::pair<int, dist>> overrides; };
using kfc::gemm_shape;
struct task {
    std::string name;
    std::vector<std::string> symbols;
    std::vector<tensor> t;
    double atol[DT_COUNT] = {}, rtol[DT_COUNT] = {};
    std::vector<stress> stresses;
    std::vector<shape> shapes;
    int base = BASE_NONE;
    double target_tflops = 0;
    std::vector<gemm_shape> gemms;
    const fc_entry *fn = nullptr;
};

struct result_row {
    char task[32], shape[64], note[64];
    double time_ms, flops, bytes, base_ms;
    int base, checks_passed, checks_total;
    double target_tflops;
};

#define CUDA_OK KFC_CUDA_OK

/* ---- the digest ---- */
static int lookup(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; ++i)
        if (!strcmp(names[i], s)) return i;
    fprintf(stderr, "cuda_fusioncheck: unknown name '%s' in the digest\n", s);
    exit(kfc::EXIT_SETUP);
}

static dist read_dist(char **save) {
    dist d;
    d.kind = lookup(DIST_NAMES, DIST_COUNT, strtok_r(nullptr, " \n", save));
    d.a = atof(strtok_r(nullptr, " \n", save));
    d.b = atof(strtok_r(nullptr, " \n", save));
    d.c = atof(strtok_r(nullptr, " \n", save));
    return d;
}

static long long next_ll(char **save) { return atoll(strtok_r(nullptr, " \n", save)); }

static std::vector<task> read_digest(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(kfc::EXIT_SETUP); }
    std::vector<task> tasks;
    char line[MAX_LINE];
    while (fgets(line, sizeof line, f)) {
        char *save = nullptr, *word = strtok_r(line, " \n", &save);
        if (!word) continue;
        if (!strcmp(word, "task")) {
            tasks.emplace_back();
            tasks.back().name = strtok_r(nullptr, " \n", &save);
            for (const fc_entry &e : FC_ENTRIES)
                if (tasks.back().name == e.name) tasks.back().fn = &e;
            continue;
        }
        task &t = tasks.back();
        if (!strcmp(word, "symbols")) {
            for (long long n = next_ll(&save); n > 0; --n) t.symbols.push_back(strtok_r(nullptr, " \n", &save));
        } else if (!strcmp(word, "tensor")) {
            tensor x;
            x.output = !strcmp(strtok_r(nullptr, " \n", &save), "out");
            x.name = strtok_r(nullptr, " \n", &save);
            x.dtype = lookup(DTYPE_NAMES, DT_COUNT, strtok_r(nullptr, " \n", &save));
            if (!x.output) x.d = read_dist(&save);
            t.t.push_back(x);
        } else if (!strcmp(word, "tol")) {
            const int d = lookup(DTYPE_NAMES, DT_COUNT, strtok_r(nullptr, " \n", &save));
            t.atol[d] = atof(strtok_r(nullptr, " \n", &save));
            t.rtol[d] = atof(strtok_r(nullptr, " \n", &save));
        } else if (!strcmp(word, "stress")) {
            stress s;
            s.name = strtok_r(nullptr, " \n", &save);
            for (long long n = next_ll(&save); n > 0; --n) {
                const int idx = (int)next_ll(&save);
                s.overrides.push_back({idx, read_dist(&save)});
            }
            t.stresses.push_back(s);
        } else if (!strcmp(word, "shape")) {
            shape s;
            s.set = strtok_r(nullptr, " \n", &save);
            s.misaligned = next_ll(&save) != 0;
            for (size_t i = 0; i < t.symbols.size(); ++i) s.v.push_back(next_ll(&save));
            for (size_t i = 0; i < t.t.size(); ++i) s.numel.push_back(next_ll(&save));
            s.flops = atof(strtok_r(nullptr, " \n", &save));
            s.bytes = atof(strtok_r(nullptr, " \n", &save));
            for (size_t i = 0; i < t.t.size(); ++i) s.fan_in.push_back(next_ll(&save));
            t.shapes.push_back(s);
        } else if (!strcmp(word, "base")) {
            const char *kind = strtok_r(nullptr, " \n", &save);
            if (!strcmp(kind, "copy")) t.base = BASE_COPY;
            else if (!strcmp(kind, "target")) { t.base = BASE_TARGET; t.target_tflops = atof(strtok_r(nullptr, " \n", &save)); }
            else if (!strcmp(kind, "gemm")) {
                t.base = BASE_GEMM;
                for (long long n = next_ll(&save); n > 0; --n) {
                    gemm_shape g;
                    g.m = next_ll(&save);
                    g.n = next_ll(&save);
                    g.k = next_ll(&save);
                    t.gemms.push_back(g);
                }
            }
        }
    }
    fclose(f);
    for (const task &t : tasks)
        if (!t.fn) { fprintf(stderr, "cuda_fusioncheck: no adapter for %s\n", t.name.c_str()); exit(kfc::EXIT_SETUP); }
    return tasks;
}

static std::string shape_text(const task &t, const shape &s) {
    std::string out;
    for (size_t i = 0; i < s.v.size(); ++i) {
        char buf[48];
        snprintf(buf, sizeof buf, "%s%s=%lld", i ? " " : "", t.symbols[i].c_str(), s.v[i]);
        out += buf;
    }
    return out;
}

/* ---- inputs: counter-based draws on the device, following the spec's distributions ---- */
__global__ void fill_kernel(void *p, int dt, long long n, unsigned long long seed, int kind, double a, double b,
                            double c) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        double u1, u2, v;
        kfc::uniform_pair(seed, i, u1, u2);
        if (kind == DIST_NORMAL) v = a + b * sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
        else if (kind == DIST_UNIFORM) v = a + (b - a) * u2;
        else if (kind == DIST_TIES) {
            const int level = min((int)(u2 * c), (int)c - 1);
            const double base = a + (b - a) * level / (c - 1.0);
            v = base + (2.0 * u1 - 1.0) * TIES_JITTER * fmax(fabs(base), 1.0);
        } else v = floor(a + (b - a + 1.0) * u2);
        if (dt == DT_F32) ((float *)p)[i] = (float)v;
        else if (dt == DT_BF16) ((bf16 *)p)[i] = __float2bfloat16_rn((float)v);
        else ((int *)p)[i] = (int)v;
    }
}

using kfc::FILL_BLOCKS;
using kfc::FILL_THREADS;

static double host_value(int dt, const void *p, long long i) {
    if (dt == DT_F32) return ((const float *)p)[i];
    if (dt == DT_BF16) return (double)__bfloat162float(((const bf16 *)p)[i]);
    return ((const int *)p)[i];
}

/* Device tensors of one case: misaligned ones start one element past a 16-byte boundary. */
struct case_bufs {
    std::vector<char *> raw;
    std::vector<void *> ptr;
    ~case_bufs() { for (char *p : raw) cudaFree(p); }
};

static void alloc_case(case_bufs &c, const task &t, const shape &s) {
    for (size_t i = 0; i < t.t.size(); ++i) {
        const size_t elem = DTYPE_BYTES[t.t[i].dtype], off = s.misaligned ? elem : 0;
        char *p = nullptr;
        CUDA_OK(cudaMalloc(&p, std::max<size_t>(1, s.numel[i]) * elem + off));
        c.raw.push_back(p);
        c.ptr.push_back(p + off);
    }
}

static void fill_inputs(case_bufs &c, const task &t, const shape &s, const stress *st, unsigned long long seed,
                        cudaStream_t stream) {
    for (size_t i = 0; i < t.t.size(); ++i) {
        const tensor &x = t.t[i];
        if (x.output) {
            CUDA_OK(cudaMemsetAsync(c.ptr[i], POISON_BYTE, s.numel[i] * DTYPE_BYTES[x.dtype], stream));
            continue;
        }
        dist d = x.d;
        if (d.kind == DIST_NORMAL) d.b /= std::sqrt((double)s.fan_in[i]);   /* as kf_task_dist scales it */
        if (st)
            for (const auto &o : st->overrides)
                if (o.first == (int)i) d = o.second;
        fill_kernel<<<FILL_BLOCKS, FILL_THREADS, 0, stream>>>(c.ptr[i], x.dtype, s.numel[i], seed * 131 + i, d.kind,
                                                               d.a, d.b, d.c);
        CUDA_OK(cudaGetLastError());
    }
}

static int launch(const task &t, const shape &s, case_bufs &c, cudaStream_t stream) {
    return t.fn->launch(c.ptr.data(), s.v.data(), stream);
}

struct ctx {
    bool quick = false;
    kfc::timer timer;
    cudaStream_t stream = nullptr;    /* timer.stream */
    cublasHandle_t blas = nullptr;
    int passed = 0, total = 0;
};

static bool verdict(ctx &c, bool ok) {
    c.total++;
    if (ok) c.passed++;
    return ok;
}

/* One case against the oracle: every output within atol + rtol |ref|, inputs left as they were. */
static bool check_case(ctx &c, const task &t, const shape &s, const stress *st, unsigned long long seed) {
    case_bufs b;
    alloc_case(b, t, s);
    fill_inputs(b, t, s, st, seed, c.stream);
    std::vector<std::vector<char>> host(t.t.size()), before(t.t.size());
    CUDA_OK(cudaStreamSynchronize(c.stream));
    for (size_t i = 0; i < t.t.size(); ++i)
        if (!t.t[i].output) {
            before[i].resize(s.numel[i] * DTYPE_BYTES[t.t[i].dtype]);
            CUDA_OK(cudaMemcpy(before[i].data(), b.ptr[i], before[i].size(), cudaMemcpyDeviceToHost));
        }
    const int rc = launch(t, s, b, c.stream);
    const cudaError_t sync = cudaStreamSynchronize(c.stream);
    std::string label = t.name + " " + s.set + " " + shape_text(t, s) + (s.misaligned ? " misaligned" : "") +
                        (st ? " stress " + st->name : "");
    if (rc != 0 || sync != cudaSuccess) {
        printf("  FAIL %-80s launch returned %d, sync: %s\n", label.c_str(), rc, cudaGetErrorString(sync));
        if (sync != cudaSuccess) exit(kfc::EXIT_SETUP);   /* a sticky error poisons the context */
        return verdict(c, false);
    }
    std::vector<std::vector<double>> exact(t.t.size());
    std::vector<double *> ptrs;
    bool inputs_kept = true;
    for (size_t i = 0; i < t.t.size(); ++i) {
        host[i].resize(s.numel[i] * DTYPE_BYTES[t.t[i].dtype]);
        CUDA_OK(cudaMemcpy(host[i].data(), b.ptr[i], host[i].size(), cudaMemcpyDeviceToHost));
        if (!t.t[i].output) inputs_kept &= host[i] == before[i];
        exact[i].resize(std::max<long long>(1, s.numel[i]));
        if (!t.t[i].output)
            for (long long e = 0; e < s.numel[i]; ++e) exact[i][e] = host_value(t.t[i].dtype, host[i].data(), e);
        ptrs.push_back(exact[i].data());
    }
    if (t.fn->oracle(ptrs.data(), s.v.data()) != 0) { fprintf(stderr, "oracle failed\n"); exit(kfc::EXIT_SETUP); }
    bool ok = inputs_kept;
    double worst = 0.0;
    long long bad = 0, first = -1;
    double first_got = 0, first_want = 0;
    for (size_t i = 0; i < t.t.size(); ++i) {
        if (!t.t[i].output) continue;
        const double atol = t.atol[t.t[i].dtype], rtol = t.rtol[t.t[i].dtype];
        for (long long e = 0; e < s.numel[i]; ++e) {
            const double got = host_value(t.t[i].dtype, host[i].data(), e), want = exact[i][e];
            const double err = fabs(got - want), bound = atol + rtol * fabs(want);
            if (!(err <= bound)) {   /* NaN fails */
                if (first < 0) { first = e; first_got = got; first_want = want; }
                ++bad;
            } else if (bound > 0) {
                worst = std::max(worst, err / bound);
            }
        }
    }
    ok &= bad == 0;
    printf("  %-4s %-80s margin %.3f", ok ? "ok" : "FAIL", label.c_str(), worst);
    if (bad) printf("  %lld bad, first at %lld: got %.6g want %.6g", bad, first, first_got, first_want);
    if (!inputs_kept) printf("  inputs modified");
    printf("\n");
    fflush(stdout);
    return verdict(c, ok);
}

static void run_checks(ctx &c, const task &t) {
    unsigned long long seed = 1;
    for (const shape &s : t.shapes) {
        if (s.set == "bench") continue;
        check_case(c, t, s, nullptr, seed++);
        if (s.set == "test")
            for (const stress &st : t.stresses) check_case(c, t, s, &st, seed++);
    }
}

static void fill_row(result_row &r, const char *task_name, const std::string &shape_s) {
    memset(&r, 0, sizeof r);
    snprintf(r.task, sizeof r.task, "%s", task_name);
    snprintf(r.shape, sizeof r.shape, "%s", shape_s.c_str());
}

/* The bench shape: outputs finite and not constant (the only check affordable there), then the timing. */
static void run_bench(ctx &c, const task &t, std::vector<result_row> &rows) {
    for (const shape &s : t.shapes) {
        if (s.set != "bench") continue;
        case_bufs b;
        alloc_case(b, t, s);
        fill_inputs(b, t, s, nullptr, 99, c.stream);
        if (launch(t, s, b, c.stream) != 0) { fprintf(stderr, "bench launch failed\n"); exit(kfc::EXIT_SETUP); }
        CUDA_OK(cudaStreamSynchronize(c.stream));
        bool sane = true;
        for (size_t i = 0; i < t.t.size(); ++i) {
            if (!t.t[i].output) continue;
            std::vector<char> h(s.numel[i] * DTYPE_BYTES[t.t[i].dtype]);
            CUDA_OK(cudaMemcpy(h.data(), b.ptr[i], h.size(), cudaMemcpyDeviceToHost));
            const double v0 = host_value(t.t[i].dtype, h.data(), 0);
            bool varies = false;
            for (long long e = 0; e < s.numel[i]; ++e) {
                const double v = host_value(t.t[i].dtype, h.data(), e);
                sane &= std::isfinite(v);
                varies |= v != v0;
            }
            sane &= varies;
        }
        printf("  %-4s %s bench %s: outputs finite and not constant\n", sane ? "ok" : "FAIL", t.name.c_str(),
               shape_text(t, s).c_str());
        verdict(c, sane);
        result_row r;
        fill_row(r, t.name.c_str(), shape_text(t, s));
        r.time_ms = c.timer.median_ms([&] { launch(t, s, b, c.stream); });
        r.flops = s.flops;
        r.bytes = s.bytes;
        r.base = t.base;
        r.target_tflops = t.target_tflops;
        if (t.base == BASE_GEMM) r.base_ms = kfc::gemms_ms(c.timer, c.blas, t.gemms);
        rows.push_back(r);
    }
}

static void run_ceiling(ctx &c, std::vector<result_row> &rows) {
    result_row r;
    fill_row(r, "d2d_copy", "1 GiB");
    r.time_ms = c.timer.copy_ms();
    r.bytes = 2.0 * kfc::COPY_BYTES;
    r.base = BASE_COPY;
    rows.push_back(r);
}

/* ---- processes ---- */
enum mode { MODE_CHECK, MODE_BENCH, MODE_CEILING };

static void run_one(const task *t, int m, bool quick, std::vector<result_row> &rows) {
    ctx c;
    c.quick = quick;
    if (m == MODE_CHECK) {
        KFC_CUDA_OK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
    } else {
        c.timer.open();
        c.stream = c.timer.stream;
        c.blas = kfc::blas_open(c.stream);
    }
    if (m == MODE_CEILING) {
        run_ceiling(c, rows);
    } else {
        printf("== %s %s\n", t->name.c_str(), m == MODE_CHECK ? "checks" : "bench");
        if (m == MODE_CHECK) run_checks(c, *t);
        else run_bench(c, *t, rows);
        result_row r;
        fill_row(r, t->name.c_str(), m == MODE_CHECK ? "checks" : "bench checks");
        r.checks_passed = c.passed;
        r.checks_total = c.total;
        snprintf(r.note, sizeof r.note, "%s", m == MODE_CHECK ? "check" : "bench");
        rows.push_back(r);
    }
    CUDA_OK(cudaDeviceSynchronize());
    fflush(stdout);
}

struct child { kfc::child proc; const task *t; int mode; };

static child spawn(const task *t, int m, bool quick) {
    return child{kfc::child_start<result_row>(CHILD_TIMEOUT_S, [&](std::vector<result_row> &mine) {
                     run_one(t, m, quick, mine);
                 }),
                 t, m};
}

static void reap(const child &ch, std::vector<result_row> &rows) {
    kfc::child_finish<result_row>(ch.proc, rows, [&](const char *how) {
        result_row r;
        fill_row(r, ch.t ? ch.t->name.c_str() : "d2d_copy", how);
        snprintf(r.note, sizeof r.note, "%s", ch.mode == MODE_BENCH ? "bench" : "check");
        r.checks_total = 1;
        return r;
    });
}

/* ---- the table ---- */
static int print_table(const std::vector<task> &tasks, const std::vector<result_row> &rows) {
    double copy_bps = 0.0;
    for (const result_row &r : rows)
        if (!strcmp(r.task, "d2d_copy") && r.time_ms > 0) copy_bps = r.bytes / (r.time_ms * 1e-3);
    int failed = 0;
    printf("\n%-24s %-44s %9s %9s %7s %-22s %s\n", "task", "shape", "time_ms", "TFLOP/s", "TB/s", "baseline", "check");
    if (copy_bps > 0) printf("%-24s %-44s %9s %9s %7.3f %-22s %s\n", "d2d_copy", "1 GiB", "-", "-", copy_bps * 1e-12,
                             "(ceiling)", "-");
    for (const task &t : tasks) {
        int passed = 0, total = 0;
        const result_row *timed = nullptr;
        for (const result_row &r : rows) {
            if (t.name != r.task) continue;
            passed += r.checks_passed;
            total += r.checks_total;
            if (r.time_ms > 0) timed = &r;
        }
        failed |= passed != total || total == 0;
        char time_s[16] = "-", tf[16] = "-", tb[16] = "-", base[32] = "-", check[24];
        std::string shape_s = "-";
        if (timed) {
            const double s = timed->time_ms * 1e-3;
            shape_s = timed->shape;
            snprintf(time_s, sizeof time_s, "%.4f", timed->time_ms);
            if (timed->flops > 0) snprintf(tf, sizeof tf, "%.1f", timed->flops / s * 1e-12);
            snprintf(tb, sizeof tb, "%.3f", timed->bytes / s * 1e-12);
            if (timed->base == BASE_COPY && copy_bps > 0)
                snprintf(base, sizeof base, "%.1f%% of copy", 100.0 * timed->bytes / s / copy_bps);
            else if (timed->base == BASE_GEMM && timed->base_ms > 0)
                snprintf(base, sizeof base, "%.1f%% of cuBLAS", 100.0 * timed->base_ms / timed->time_ms);
            else if (timed->base == BASE_TARGET)
                snprintf(base, sizeof base, "%.1f%% of %.0f TF", 100.0 * timed->flops / s * 1e-12 / timed->target_tflops,
                         timed->target_tflops);
        }
        snprintf(check, sizeof check, "%s %d/%d", passed == total && total > 0 ? "PASS" : "FAIL", passed, total);
        printf("%-24s %-44s %9s %9s %7s %-22s %s\n", t.name.c_str(), shape_s.c_str(), time_s, tf, tb, base, check);
    }
    return failed ? 1 : 0;
}

static void usage(void) {
    fprintf(stderr, "usage: cuda_fusioncheck DIGEST [--quick] [--no-fork] [--task NAME] [--jobs N]\n"
                    "  --quick    checks only, no timing\n"
                    "  --no-fork  run everything in this process, one task at a time (for compute-sanitizer)\n"
                    "  --task     only this task (a name from the digest)\n"
                    "  --jobs     check processes at a time (default: online CPUs)\n");
}

int main(int argc, char **argv) {
    if (argc < 2) { usage(); return 2; }
    bool quick = false, fork_tasks = true;
    const char *only = nullptr;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 2; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--no-fork")) fork_tasks = false;
        else if (!strcmp(argv[i], "--task") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = atol(argv[++i]);
        else { usage(); return 2; }
    }
    std::vector<task> all = read_digest(argv[1]), tasks;
    for (const task &t : all)
        if (!only || t.name == only) tasks.push_back(t);
    if (tasks.empty()) { usage(); return 2; }
    std::vector<result_row> rows;
    if (!fork_tasks) {
        for (const task &t : tasks) run_one(&t, MODE_CHECK, quick, rows);
        if (!quick) {
            run_one(nullptr, MODE_CEILING, quick, rows);
            for (const task &t : tasks) run_one(&t, MODE_BENCH, quick, rows);
        }
        return print_table(tasks, rows);
    }
    std::vector<child> running;
    for (const task &t : tasks) {
        if ((long)running.size() >= std::max(1L, jobs)) {
            reap(running.front(), rows);
            running.erase(running.begin());
        }
        running.push_back(spawn(&t, MODE_CHECK, quick));
    }
    for (const child &ch : running) reap(ch, rows);
    if (!quick) {
        reap(spawn(nullptr, MODE_CEILING, quick), rows);
        for (const task &t : tasks) reap(spawn(&t, MODE_BENCH, quick), rows);
    }
    return print_table(tasks, rows);
}
