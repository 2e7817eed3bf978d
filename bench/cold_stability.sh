#!/usr/bin/env bash
# Stability on a cold machine (issue 16.4): run as the first thing on a freshly started GPU machine, before
# anything else touches the GPU. Each starter example (examples/cuda: vector_add, softmax_rows,
# layernorm_bf16, matmul_bf16) is submitted REPEATS times through `kforge submit --backend cuda`, each into a
# new database, and the spread (max - min) / median of the medians is printed for the candidate, the reference
# and the vendor baseline. Target: every spread <= 2%. Exit 0 when every spread is within it.
# Usage: bash bench/cold_stability.sh [REPEATS]   (default 5; KF_BIN, KF_LIBS, OUT as in bench/ref_fidelity.sh)
set -u
cd "$(dirname "$0")/.."
reps=${1:-5}
out=${OUT:-/tmp/kforge-cold}
bin=${KF_BIN:-build}
mkdir -p "$out"
export KFORGE_HOME=${KFORGE_HOME:-$PWD} KFORGE_CACHE=${KFORGE_CACHE:-/tmp/kforge-cache}
examples="vector_add softmax_rows layernorm_bf16 matmul_bf16"
for r in $(seq "$reps"); do
	for t in $examples; do
		LD_LIBRARY_PATH=${KF_LIBS:-${LD_LIBRARY_PATH:-}} KFORGE_DB="$out/cold_${t}_$r.db" \
			"$bin/kforge" submit --backend cuda --task "$t" --json "examples/cuda/$t.cu" \
			> "$out/cold_${t}_$r.json" 2> "$out/cold_${t}_$r.err"
	done
done
python3 - "$out" "$reps" "$examples" <<'PY'
import json, statistics, sys
out, reps, examples = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
TARGET = 0.02
print(f"cold-machine stability: {reps} submissions of each starter example, each into a new database; "
      f"spread = (max - min) / median of the medians, target <= {TARGET:.0%}")
print(f"{'example':<16} {'side':<10} {'median ms':>10} {'min':>9} {'max':>9} {'spread':>8}  verdict  medians")
failed = 0
for t in examples:
    runs = []
    for r in range(1, reps + 1):
        try:
            runs.append(json.load(open(f"{out}/cold_{t}_{r}.json")))
        except (OSError, ValueError):
            runs.append({"verdict": "none"})
    bad = [r.get("verdict") for r in runs if r.get("verdict") != "ok"]
    if bad:
        failed += 1
        print(f"{t:<16} verdicts {bad}: FAIL")
        continue
    for side, key in (("candidate", "time_ms"), ("reference", "ref_time_ms"), ("vendor", "vendor_time_ms")):
        v = [r[key] for r in runs if r.get(key) is not None]
        if not v:
            continue
        med = statistics.median(v)
        spread = (max(v) - min(v)) / med
        ok = spread <= TARGET and len(v) == reps
        failed += not ok
        print(f"{t:<16} {side:<10} {med:10.4f} {min(v):9.4f} {max(v):9.4f} {spread:7.2%}  {'PASS' if ok else 'FAIL'}    "
              + " ".join(f"{x:.4f}" for x in v))
sys.exit(1 if failed else 0)
PY
