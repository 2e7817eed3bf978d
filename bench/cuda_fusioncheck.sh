#!/usr/bin/env bash
# Builds bench/cuda_fusioncheck.cu with the level-2/3 CUDA references (each with -Dkf_launch=kf_ref_<task>) and their
# fp64 oracles (-Dkf_oracle=kf_oracle_<task>) and runs it; the table it prints last is in docs/task-suite-l23.md. The
# checker's view of each task (shapes, distributions, tolerances, FLOPs, bytes, call adapters) is generated here from
# tasks/level{2,3}/*.json, plus the extra shapes below and the baselines of bench/cuda_check_common.cuh. Not part of
# the Makefile. KF_FUSIONCHECK_DIR: where to build (default .gpu/fusioncheck).
# Usage: bash bench/cuda_fusioncheck.sh [--build-only | --run-only] [--sanitize] [checker args: --quick --task T ...]
set -euo pipefail
cd "$(dirname "$0")/.."

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CC=${CC:-cc}
BUILD_DIR=${KF_FUSIONCHECK_DIR:-.gpu/fusioncheck}
ARCH=-gencode=arch=compute_90a,code=sm_90a

build=1 run=1 sanitize=0
args=()
for a in "$@"; do
    case $a in
        --build-only) run=0 ;;
        --run-only) build=0 ;;
        --sanitize) sanitize=1 ;;
        *) args+=("$a") ;;
    esac
done

# digest.txt (one block per task, read by the checker) and fusion_adapters.h (typed calls of each reference and oracle)
generate() {
    python3 - "$BUILD_DIR" <<'PY'
import glob, json, os, re, sys

out = sys.argv[1]
# Shapes that take each reference's tensor-core / TMA / register fast paths, checked against the oracle like the
# spec's own; "misaligned" shapes start every tensor one element past a 16-byte boundary (the fallback paths).
EXTRA = {
    "gemm_bias_gelu": [dict(M=256, N=512, K=320), dict(M=200, N=264, K=72), dict(M=130, N=520, K=1000)],
    "swiglu_up": [dict(M=256, N=384, K=256), dict(M=130, N=136, K=200)],
    "rmsnorm_matmul": [dict(M=256, N=512, K=320), dict(M=130, N=264, K=1000)],
    "gemm_rowscale": [dict(M=256, N=512, K=512), dict(M=300, N=520, K=136)],
    "mlp_block": [dict(M=256, Dm=256, F=512), dict(M=130, Dm=264, F=200)],
    "decoder_layer": [dict(B=1, L=256, H=4, HKV=2, D=64, F=512), dict(B=2, L=200, H=4, HKV=1, D=128, F=640)],
    "flash_attention": [dict(B=1, H=4, HKV=2, L=512, D=128), dict(B=2, H=2, HKV=1, L=300, D=64),
                        dict(B=1, H=2, HKV=2, L=130, D=128)],
    "flash_attention_causal": [dict(B=1, H=4, HKV=2, L=512, D=128), dict(B=2, H=2, HKV=1, L=300, D=64),
                               dict(B=1, H=2, HKV=2, L=130, D=128)],
    "causal_attn_scores": [dict(BH=4, L=512, D=64), dict(BH=2, L=300, D=128), dict(BH=2, L=200, D=64),
                           dict(BH=1, L=136, D=128)],
    "masked_softmax": [dict(batch=2, rows=8, cols=2048), dict(batch=2, rows=3, cols=8192),
                       dict(batch=1, rows=2, cols=10000)],
    "residual_layernorm": [dict(rows=8, cols=4096), dict(rows=4, cols=8192), dict(rows=2, cols=9000)],
    "softmax_topk": [dict(rows=16, cols=4096, k=8), dict(rows=4, cols=8192, k=64), dict(rows=2, cols=9001, k=5)],
    "linear_attention": [dict(BH=2, L=1000, D=64), dict(BH=2, L=300, D=128), dict(BH=1, L=200, D=100)],
    "selective_scan": [dict(B=2, L=300, Dm=100, N=16), dict(B=1, L=200, Dm=64, N=64)],
    "long_conv": [dict(B=2, C=4, L=2000), dict(B=1, C=3, L=1500), dict(B=3, C=2, L=5000), dict(B=1, C=2, L=9000)],
}
MISALIGNED = {
    "gemm_bias_gelu": dict(M=64, N=64, K=64), "swiglu_up": dict(M=64, N=64, K=64),
    "rmsnorm_matmul": dict(M=64, N=64, K=64), "gemm_rowscale": dict(M=64, N=64, K=64),
    "mlp_block": dict(M=32, Dm=64, F=128), "decoder_layer": dict(B=1, L=64, H=2, HKV=1, D=64, F=256),
    "flash_attention": dict(B=1, H=2, HKV=1, L=64, D=64), "flash_attention_causal": dict(B=1, H=2, HKV=1, L=64, D=64),
    "causal_attn_scores": dict(BH=2, L=64, D=64), "masked_softmax": dict(batch=2, rows=4, cols=1024),
    "residual_layernorm": dict(rows=4, cols=1024), "softmax_topk": dict(rows=4, cols=1024, k=8),
    "linear_attention": dict(BH=1, L=128, D=64), "selective_scan": dict(B=1, L=64, Dm=64, N=16),
    "long_conv": dict(B=1, C=2, L=512),
}
# What each bench time is measured against, from the tables in bench/cuda_check_common.cuh (the suite checker
# uses the same ones): the GEMMs cuBLAS would run for the same work, a FLOP-rate target, nothing, or else the copy
# bandwidth.
def table(name):
    text = open("bench/cuda_check_common.cuh").read()
    return re.search(r"\b%s\[\] = \{(.*?)\};" % name, text, re.S).group(1)
BASE = {}
for task, gemms in re.findall(r'\{"(\w+)", \{([^}]*)\}\}', table("GEMM_WORK")):
    BASE[task] = ("gemm", re.findall(r'"([^"]+)"', gemms))
for task, tflops in re.findall(r'\{"(\w+)", ([0-9.]+)\}', table("FLOP_TARGETS")):
    BASE[task] = ("target", float(tflops))
for task in re.findall(r'"(\w+)"', table("NO_BASELINE")):
    BASE[task] = ("none",)
SIZE = {"f32": 4, "bf16": 2, "f16": 2, "i32": 4}
CTYPE = {"f32": "float", "bf16": "__nv_bfloat16", "f16": "__half", "i32": "int"}

def ev(expr, env):
    return int(eval(re.sub(r"/", "//", str(expr)), {"__builtins__": {}}, dict(env)))

def dist(d):
    kind = d["kind"]
    a, b, c = {"normal": ("mean", "std", None), "uniform": ("lo", "hi", None), "ties": ("lo", "hi", "levels"),
               "int": ("lo", "hi", None)}[kind]
    return "%s %r %r %r" % (kind, float(d[a]), float(d[b]), float(d[c]) if c else 0.0)

digest, adapters, entries = [], [], []
for path in sorted(glob.glob("tasks/level2/*.json") + glob.glob("tasks/level3/*.json")):
    t = json.load(open(path))
    ref = t.get("reference", {}).get("cuda")
    if not ref or "cuda/generic/" in open(ref).read():   # generic references: bench/cuda_suitecheck.sh checks them
        continue
    name, syms = t["name"], t["symbols"]
    tensors = [(x, False) for x in t["inputs"]] + [(x, True) for x in t["outputs"]]
    digest.append("task %s" % name)
    digest.append("symbols %d %s" % (len(syms), " ".join(syms)))
    for x, is_out in tensors:
        digest.append("tensor %s %s %s%s" % ("out" if is_out else "in", x["name"], x["dtype"],
                                             "" if is_out else " " + dist(x["dist"])))
    for dt, tol in t["tolerance"].items():
        digest.append("tol %s %r %r" % (dt, float(tol["atol"]), float(tol["rtol"])))
    for st in t.get("stress", []):
        ov = [(i, st["inputs"][x["name"]]) for i, (x, _) in enumerate(tensors) if x["name"] in st["inputs"]]
        if any("fan_in" in d for _, d in ov):
            sys.exit("cuda_fusioncheck: %s: a stress distribution with a fan_in is not supported here" % name)
        digest.append("stress %s %d %s" % (st["name"], len(ov), " ".join("%d %s" % (i, dist(d)) for i, d in ov)))
    def shape_line(set_name, s, misaligned=False):
        numel = [1] * len(tensors)
        for i, (x, _) in enumerate(tensors):
            for e in x["shape"]:
                numel[i] *= ev(e, s)
        flops = ev(t["flops"], s)
        nbytes = ev(t["bytes"], s) if "bytes" in t else sum(n * SIZE[x["dtype"]] for n, (x, _) in zip(numel, tensors))
        # Each input's fan-in at this shape (1 without one): the checker divides a normal std by its root.
        fan_in = [ev(x["dist"]["fan_in"], s) if not is_out and "fan_in" in x["dist"] else 1 for x, is_out in tensors]
        return "shape %s %d %s %s %d %d %s" % (set_name, int(misaligned), " ".join(str(s[k]) for k in syms),
                                              " ".join(map(str, numel)), flops, nbytes, " ".join(map(str, fan_in)))
    for set_name in ("test", "ragged", "hidden"):
        digest += [shape_line(set_name, s) for s in t["shapes"][set_name]]
    digest += [shape_line("gpu", s) for s in EXTRA.get(name, [])]
    if name in MISALIGNED:
        digest.append(shape_line("gpu", MISALIGNED[name], True))
    bench = t["shapes"]["bench"]["cuda"]
    digest.append(shape_line("bench", bench))
    base = BASE.get(name, ("copy",))
    if base[0] == "gemm":
        dims = [[ev(e, bench) for e in g.split(",")] for g in base[1]]
        digest.append("base gemm %d %s" % (len(dims), " ".join("%d %d %d" % tuple(d) for d in dims)))
    elif base[0] == "target":
        digest.append("base target %g" % base[1])
    else:
        digest.append("base %s" % base[0])
    digest.append("end")
    # typed adapters, following the ABI's signature rule
    ref_args = ["const %s *" % CTYPE[x["dtype"]] if not o else "%s *" % CTYPE[x["dtype"]] for x, o in tensors]
    adapters.append('extern "C" int kf_ref_%s(%s, %s, cudaStream_t);' % (name, ", ".join(ref_args),
                                                                           ", ".join("int" for _ in syms)))
    adapters.append('extern "C" int kf_oracle_%s(%s, %s);' % (name, ", ".join(
        "const double *" if not o else "double *" for _, o in tensors), ", ".join("int" for _ in syms)))
    casts = ", ".join("(%sb[%d]" % ("%s)" % a.rstrip(), i) for i, a in enumerate(ref_args))
    ints = ", ".join("(int)s[%d]" % i for i in range(len(syms)))
    adapters.append("static int fc_launch_%s(void *const *b, const long long *s, cudaStream_t st) "
                    "{ return kf_ref_%s(%s, %s, st); }" % (name, name, casts, ints))
    adapters.append("static int fc_oracle_%s(double *const *b, const long long *s) { return kf_oracle_%s(%s, %s); }"
                    % (name, name, ", ".join("b[%d]" % i for i in range(len(tensors))), ints))
    entries.append('    {"%s", fc_launch_%s, fc_oracle_%s},' % (name, name, name))

with open(os.path.join(out, "digest.txt"), "w") as f:
    f.write("\n".join(digest) + "\n")
with open(os.path.join(out, "fusion_adapters.h"), "w") as f:
    f.write("/* Generated by bench/cuda_fusioncheck.sh from tasks/level{2,3}/*.json: do not edit. */\n#pragma once\n"
            "#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n\n"
            "struct fc_entry {\n    const char *name;\n    int (*launch)(void *const *, const long long *, cudaStream_t);\n"
            "    int (*oracle)(double *const *, const long long *);\n};\n\n" + "\n".join(adapters) +
            "\n\nstatic const fc_entry FC_ENTRIES[] = {\n" + "\n".join(entries) + "\n};\n")
print(" ".join(e.split('"')[1] for e in entries))
PY
}

if [ $build = 1 ]; then
    mkdir -p "$BUILD_DIR"
    TASKS=$(generate)
    objs=()
    for t in $TASKS; do
        "$NVCC" -O3 -std=c++17 $ARCH -Ireference_kernels -Dkf_launch=kf_ref_$t -c reference_kernels/cuda/$t.cu \
            -o "$BUILD_DIR/$t.o" &
        "$CC" -std=c17 -O2 -Dkf_oracle=kf_oracle_$t -c reference_kernels/oracle/$t.c -o "$BUILD_DIR/oracle_$t.o" &
        objs+=("$BUILD_DIR/$t.o" "$BUILD_DIR/oracle_$t.o")
    done
    wait
    "$NVCC" -O3 -std=c++17 $ARCH -I"$BUILD_DIR" bench/cuda_fusioncheck.cu "${objs[@]}" -lcublas \
        -o "$BUILD_DIR/cuda_fusioncheck"
    echo "built $BUILD_DIR/cuda_fusioncheck ($(echo $TASKS | wc -w) tasks)"
fi
[ $run = 1 ] || exit 0

if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.limit --format=csv
fi
if command -v cuobjdump >/dev/null; then
    for t in flash_attention gemm_bias_gelu mlp_block; do
        echo "HGMMA instructions in $t: $(cuobjdump --dump-sass "$BUILD_DIR/$t.o" | grep -c HGMMA)"
    done
fi
SANITIZE_TIMEOUT_S=300
sanitize_rc=0
if [ $sanitize = 1 ]; then
    timeout $SANITIZE_TIMEOUT_S compute-sanitizer --tool memcheck --error-exitcode 1 \
        "$BUILD_DIR/cuda_fusioncheck" "$BUILD_DIR/digest.txt" --quick --no-fork || sanitize_rc=$?
    echo "compute-sanitizer memcheck (check shapes): exit $sanitize_rc"
fi
check_rc=0
"$BUILD_DIR/cuda_fusioncheck" "$BUILD_DIR/digest.txt" ${args[@]+"${args[@]}"} || check_rc=$?
[ $check_rc = 0 ] && [ $sanitize_rc = 0 ]
