/* A standalone timer for one kforge-built kernel object (kf_shim_call in the .so that bench/ref_so prints),
 * independent of kforge's judge: its own buffers, its own flush and its own clock. The input values are
 * kforge's draws at the bench shape (files that bench/ref_so --args writes: the same distributions, so
 * index-driven kernels run the same work), uploaded once and copied afresh into the tensors before each call.
 * Each timed call gets those inputs restored, poisoned outputs and an L2 flush (a write over twice the L2), then
 * CUDA events around that one call; the median of --iters calls after two warm-up calls is printed as one
 * JSON line. The other options reproduce what the judge's set-up differs in, to find what moves a time:
 *   --method sleep   (default) a kernel that sleeps ~1 ms is queued ahead of the start event, so the whole
 *                    call is enqueued before the window opens: the events time the device's work alone
 *            events  the start event is recorded on an idle stream (kforge's runner before the hold kernel):
 *                    the window also holds the host's launch latency and kf_launch's host work
 *            busy    the flush is queued right before the start event on the same stream (bench/cuda_refcheck)
 *   --layout separate (default) one allocation per tensor | area: one allocation, 4096-byte aligned offsets in
 *                    tensor order (the judge's layout)
 *   --ipc            the area belongs to a parent process (another CUDA context) that draws the inputs, poisons
 *                    and flushes before each call and waits for it, as the judge does; the call and its events
 *                    run in this process on the memory opened through CUDA IPC
 * Buffers, in the shim's order: --tensor in:BYTES:PATH for each input, --tensor out:BYTES for each output, then
 * --tensor ws:BYTES for a workspace; --ints the shim's ints (symbols, then scalars). bench/ref_so --args prints
 * both. Built by bench/ref_fidelity.sh (or bench/gpu-bundle.sh) with nvcc. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

constexpr int WARMUP = 2, DEFAULT_ITERS = 100;
constexpr size_t AREA_ALIGN = 4096;                    /* the judge's per-tensor alignment */
constexpr unsigned long long SLEEP_NS = 1000000;       /* ahead of the start event: longer than any enqueue */
constexpr int POISON_BYTE = 0xFF;                      /* NaN in the float dtypes */
constexpr int MAX_TENSORS = 16, MAX_INTS = 16;

enum kind { INPUT, OUTPUT, WORKSPACE };

struct tensor {
    kind k;
    size_t bytes;
    std::string path; /* inputs: the drawn values */
};

struct options {
    const char *so = nullptr;
    std::vector<tensor> t;
    std::vector<long long> ints;
    int iters = DEFAULT_ITERS;
    std::string method = "sleep", layout = "separate";
    bool ipc = false;
};

[[noreturn]] void die(const char *what, const char *detail = "") {
    fprintf(stderr, "ref_time: %s%s\n", what, detail);
    exit(3);
}

void ok(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return;
    fprintf(stderr, "ref_time: %s: %s\n", what, cudaGetErrorString(e));
    exit(3);
}


__global__ void sleep_kernel(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

/* ---- buffers ---- */
struct buffers {
    std::vector<char *> p;       /* per tensor, in this process */
    char *area = nullptr;        /* layout area or IPC: the one allocation */
    std::vector<char *> pristine; /* per tensor: the input's values on the device (nullptr for the others) */
    void *flush = nullptr;
    size_t flush_bytes = 0;
};

/* Each input's file, uploaded once. */
void load_inputs(const options &o, buffers &b) {
    for (const tensor &t : o.t) {
        char *q = nullptr;
        if (t.k == INPUT) {
            std::ifstream f(t.path, std::ios::binary);
            std::vector<char> host((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
            if (!f.good() && !f.eof()) die("cannot read ", t.path.c_str());
            if (host.size() != t.bytes) die("input file of the wrong size: ", t.path.c_str());
            ok(cudaMalloc(&q, t.bytes ? t.bytes : 1), "input copy");
            ok(cudaMemcpy(q, host.data(), t.bytes, cudaMemcpyHostToDevice), "input upload");
        }
        b.pristine.push_back(q);
    }
}

size_t area_bytes(const options &o, std::vector<size_t> &off) {
    size_t at = 0;
    for (const tensor &t : o.t) {
        off.push_back(at);
        at += (t.bytes + AREA_ALIGN - 1) / AREA_ALIGN * AREA_ALIGN;
    }
    return at;
}

void alloc_flush(buffers &b) {
    int l2 = 0;
    ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "L2 size");
    b.flush_bytes = 2 * (size_t)l2;
    ok(cudaMalloc(&b.flush, b.flush_bytes), "flush buffer");
}

/* Inputs restored, outputs and workspace poisoned, a flush; nothing is waited for. */
void prepare(const options &o, const std::vector<char *> &p, const buffers &b, int it, cudaStream_t s) {
    for (size_t i = 0; i < o.t.size(); ++i) {
        const tensor &t = o.t[i];
        if (t.k == INPUT) ok(cudaMemcpyAsync(p[i], b.pristine[i], t.bytes, cudaMemcpyDeviceToDevice, s), "input");
        else ok(cudaMemsetAsync(p[i], POISON_BYTE, t.bytes, s), "poison");
    }
    ok(cudaMemsetAsync(b.flush, it & 0xff, b.flush_bytes, s), "flush");
}

double now_us() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

typedef int (*shim_fn)(void *const *, const long long *, void *);

double pct(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[(size_t)(q * (v.size() - 1) + 0.5)];
}

/* The timed loop, in the process that owns the call. sync_prep: prepare here; otherwise ask the parent
 * (cmd/ack pipes) to prepare its area and wait until it has. */
void run(const options &o, std::vector<char *> &p, buffers &b, int to_parent, int from_parent) {
    void *so = dlopen(o.so, RTLD_NOW | RTLD_LOCAL);
    if (!so) die("dlopen: ", dlerror());
    shim_fn call = (shim_fn)dlsym(so, "kf_shim_call");
    if (!call) die("no kf_shim_call in ", o.so);
    cudaStream_t s;
    cudaEvent_t e0, e1;
    ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    ok(cudaEventCreate(&e0), "event");
    ok(cudaEventCreate(&e1), "event");
    std::vector<double> ms, enq;
    for (int it = 0; it < WARMUP + o.iters; ++it) {
        if (to_parent >= 0) {
            char c = 'p';
            if (write(to_parent, &c, 1) != 1 || read(from_parent, &c, 1) != 1) die("parent gone");
        } else {
            prepare(o, p, b, it, s);
            if (o.method != "busy") ok(cudaStreamSynchronize(s), "prepare");
        }
        if (o.method == "sleep") sleep_kernel<<<1, 1, 0, s>>>(SLEEP_NS);
        ok(cudaEventRecord(e0, s), "start");
        const double h0 = now_us();
        const int rc = call((void *const *)p.data(), o.ints.data(), s);
        const double h1 = now_us();
        ok(cudaEventRecord(e1, s), "stop");
        ok(cudaDeviceSynchronize(), "the call");
        if (rc) die("kf_launch returned non-zero");
        float t = 0;
        ok(cudaEventElapsedTime(&t, e0, e1), "elapsed");
        if (it >= WARMUP) {
            ms.push_back(t);
            enq.push_back(h1 - h0);
        }
    }
    printf("{\"method\":\"%s\",\"layout\":\"%s\",\"ipc\":%s,\"n\":%zu,\"median_ms\":%.5f,"
           "\"p10_ms\":%.5f,\"p90_ms\":%.5f,\"min_ms\":%.5f,\"enqueue_us_median\":%.2f,\"enqueue_us_p90\":%.2f}\n",
           o.method.c_str(), o.ipc ? "area" : o.layout.c_str(), o.ipc ? "true" : "false",
           ms.size(), pct(ms, 0.5), pct(ms, 0.1), pct(ms, 0.9), pct(ms, 0.0), pct(enq, 0.5), pct(enq, 0.9));
    fflush(stdout);
}

/* The area in this process, the tensors at the judge's offsets. */
char *make_area(const options &o, std::vector<char *> &p) {
    std::vector<size_t> off;
    const size_t bytes = area_bytes(o, off);
    char *a = nullptr;
    ok(cudaMalloc(&a, bytes), "area");
    for (size_t o_ : off) p.push_back(a + o_);
    return a;
}

/* The parent (the judge's part): owns the area, prepares it whenever the child asks. */
int ipc_parent(const options &o, int cmd, int ack, int handle_out, pid_t child) {
    buffers b;
    std::vector<char *> p;
    b.area = make_area(o, p);
    load_inputs(o, b);
    alloc_flush(b);
    cudaIpcMemHandle_t h;
    ok(cudaIpcGetMemHandle(&h, b.area), "IPC handle");
    if (write(handle_out, &h, sizeof h) != (ssize_t)sizeof h) die("cannot pass the handle");
    cudaStream_t s;
    ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    char c;
    for (int it = 0; read(cmd, &c, 1) == 1; ++it) {
        prepare(o, p, b, it, s);
        ok(cudaStreamSynchronize(s), "prepare");
        ok(cudaDeviceSynchronize(), "prepare");
        if (write(ack, &c, 1) != 1) break;
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

/* in:BYTES:PATH | out:BYTES | ws:BYTES */
tensor parse_tensor(const char *s) {
    char k[4] = {0};
    unsigned long long bytes = 0;
    int at = 0;
    if (sscanf(s, "%3[a-z]:%llu%n", k, &bytes, &at) < 2) die("bad --tensor ", s);
    tensor t{};
    t.bytes = bytes;
    t.k = !strcmp(k, "in") ? INPUT : !strcmp(k, "out") ? OUTPUT : !strcmp(k, "ws") ? WORKSPACE
        : (die("bad --tensor kind (in, out or ws): ", s), OUTPUT);
    if (t.k == INPUT) {
        if (s[at] != ':' || !s[at + 1]) die("an input needs its file: ", s);
        t.path = s + at + 1;
    } else if (s[at]) {
        die("bad --tensor ", s);
    }
    return t;
}

options parse(int argc, char **argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--ipc") o.ipc = true;
        else if (a == "--so" && v) o.so = argv[++i];
        else if (a == "--tensor" && v) o.t.push_back(parse_tensor(argv[++i]));
        else if (a == "--iters" && v) o.iters = atoi(argv[++i]);
        else if (a == "--method" && v) o.method = argv[++i];
        else if (a == "--layout" && v) o.layout = argv[++i];
        else if (a == "--ints" && v) {
            for (char *tok = strtok(argv[++i], ","); tok; tok = strtok(nullptr, ",")) o.ints.push_back(atoll(tok));
        } else {
            die("usage: ref_time --so PATH --ints A,B --tensor ... [--iters N] [--method sleep|events|busy] "
                "[--layout separate|area] [--ipc]");
        }
    }
    if (!o.so || o.t.empty() || (int)o.t.size() > MAX_TENSORS || (int)o.ints.size() > MAX_INTS || o.iters < 1)
        die("need --so, 1 to 16 tensors, at most 16 ints and --iters >= 1");
    if (o.method != "sleep" && o.method != "events" && o.method != "busy") die("unknown --method ", o.method.c_str());
    if (o.ipc && o.method == "busy") die("--ipc prepares in the other process: no busy method");
    return o;
}

} /* namespace */

int main(int argc, char **argv) {
    const options o = parse(argc, argv);
    if (!o.ipc) {
        buffers b;
        std::vector<char *> p;
        if (o.layout == "area") {
            b.area = make_area(o, p);
        } else {
            for (const tensor &t : o.t) {
                char *q = nullptr;
                ok(cudaMalloc(&q, t.bytes ? t.bytes : 1), "tensor");
                p.push_back(q);
            }
        }
        load_inputs(o, b);
        alloc_flush(b);
        run(o, p, b, -1, -1);
        return 0;
    }
    /* Forked before either process touches CUDA. */
    int cmd[2], ack[2], hp[2];
    if (pipe(cmd) || pipe(ack) || pipe(hp)) die("pipe");
    const pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid > 0) {
        close(cmd[1]), close(ack[0]), close(hp[0]); /* the child's exit ends the parent's loop */
        return ipc_parent(o, cmd[0], ack[1], hp[1], pid);
    }
    close(cmd[0]), close(ack[1]), close(hp[1]);
    cudaIpcMemHandle_t h;
    if (read(hp[0], &h, sizeof h) != (ssize_t)sizeof h) die("no handle from the parent");
    char *a = nullptr;
    ok(cudaIpcOpenMemHandle((void **)&a, h, cudaIpcMemLazyEnablePeerAccess), "IPC open");
    std::vector<size_t> off;
    area_bytes(o, off);
    std::vector<char *> p;
    for (size_t o_ : off) p.push_back(a + o_);
    buffers b;
    run(o, p, b, cmd[1], ack[0]);
    return 0;
}
