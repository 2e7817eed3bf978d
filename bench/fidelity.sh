#!/usr/bin/env bash
# Timing fidelity (issue 3), on the GPU machine: kforge's median for a cuBLAS bf16 GEMM 4096^3 and
# a 1 GiB device-to-device copy, each submitted REPEATS times through `kforge submit`, against an
# independent PyTorch measurement with CUDA events taken in the same call (bench/fidelity/torch_time.py).
# Targets: within 3% of PyTorch; spread of kforge's medians over the repeats (max-min)/median <= 2%.
# The probes are tasks of their own (bench/fidelity/tasks), not part of the suite.
# Usage: bash bench/fidelity.sh [REPEATS]   (KF_LIBS: library path for kforge alone; OUT: log directory)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
out=${OUT:-/tmp/kforge-fidelity}
mkdir -p "$out"
kf() { LD_LIBRARY_PATH=${KF_LIBS:-${LD_LIBRARY_PATH:-}} build/kforge "$@"; }
export KFORGE_TASKS=$PWD/bench/fidelity/tasks
probes=("matmul_bf16_cublas bench/fidelity/cublas_gemm.cu" "copy_f32 bench/fidelity/copy_memcpy.cu")
for p in "${probes[@]}"; do
	read -r task kernel <<<"$p"
	for r in $(seq "$reps"); do
		kf submit --task "$task" --backend cuda "$kernel" --json > "$out/fidelity_${task}_$r.json"
	done
done
python3 bench/fidelity/torch_time.py "$reps" > "$out/fidelity_torch.json"
python3 - "$out" "$reps" <<'PY'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
torch = json.load(open(f"{out}/fidelity_torch.json"))
print(f"timing fidelity on {torch['device']} (PyTorch {torch['torch']}), {reps} repeats each")
print(f"{'probe':<34} {'kforge ms':>10} {'spread':>8} {'torch ms':>10} {'diff':>8}  verdict")
def row(name, ks, ts):
    km, tm = statistics.median(ks), statistics.median(ts)
    spread, diff = (max(ks) - min(ks)) / km, km / tm - 1
    ok = abs(diff) <= 0.03 and spread <= 0.02
    print(f"{name:<34} {km:10.4f} {spread:7.2%} {tm:10.4f} {diff:+7.2%}  {'PASS' if ok else 'FAIL'} (<=3%, spread <=2%)")
for task in ("matmul_bf16_cublas", "copy_f32"):
    runs = [json.load(open(f"{out}/fidelity_{task}_{r}.json")) for r in range(1, reps + 1)]
    bad = [r["verdict"] for r in runs if r["verdict"] != "ok"]
    if bad:
        print(f"{task:<34} verdicts {bad}: FAIL"); continue
    row(f"{task} (candidate)", [r["time_ms"] for r in runs], torch[task])
    vendor = [r["vendor_time_ms"] for r in runs if r.get("vendor_time_ms") is not None]
    if len(vendor) == reps:
        row(f"{task} (vendor column)", vendor, torch[task])
PY
