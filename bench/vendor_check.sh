#!/usr/bin/env bash
# The vendor baselines (reference_kernels/vendor/) judged as candidates, on the GPU machine: every task that names a
# vendor_baseline is copied with vendor libraries allowed, and its baseline is submitted to the copy through
# `kforge submit --backend cuda`: checked against the fp64 oracle on the test, ragged, hidden and stress shapes and
# against the reference at the bench shape, then timed beside the reference and beside itself as the vendor column.
# Build and bundle here first (bash bench/gpu-bundle.sh), then run through the device tool with carry [".gpu/bin", ".gpu/lib"]:
#   bash bench/vendor_check.sh [TASK...]      (default: every task with a vendor baseline; KF_BUNDLE: other bundle)
# One line per task; the JSON records land in $OUT (or /tmp/kforge-vendor-out). Exit 1 if any verdict is not ok.
set -u
cd "$(dirname "$0")/.."
bundle=${KF_BUNDLE:-.gpu}
out=${OUT:-/tmp/kforge-vendor-out}
mkdir -p "$out" build
cp "$bundle"/bin/* build/
export KFORGE_HOME=$PWD KFORGE_CACHE=${KFORGE_CACHE:-/tmp/kforge-cache} KFORGE_DB=$out/kforge.db
export KFORGE_TASKS=$out/tasks
# Only kforge's own programs see the carried libraries.
kf() { LD_LIBRARY_PATH=$PWD/$bundle/lib build/kforge "$@"; }

# The task copies; prints "task baseline" for each task to check.
pairs=$(python3 - "$KFORGE_TASKS" "$@" <<'PY'
import glob, json, os, sys
dest, wanted = sys.argv[1], set(sys.argv[2:])
for path in sorted(glob.glob("tasks/level*/*.json")):
    spec = json.load(open(path))
    if "vendor_baseline" not in spec or (wanted and spec["name"] not in wanted):
        continue
    spec.setdefault("policy", {})["vendor_libs"] = True
    level = os.path.join(dest, os.path.basename(os.path.dirname(path)))
    os.makedirs(level, exist_ok=True)
    json.dump(spec, open(os.path.join(level, os.path.basename(path)), "w"), indent=2)
    print(spec["name"], spec["vendor_baseline"])
PY
)

printf '%-24s %-24s %-8s %10s %10s %10s  %s\n' task baseline verdict "time ms" "ref ms" "vendor ms" "notes"
status=0
while read -r task name; do
	[ -n "$task" ] || continue
	kf submit --backend cuda --task "$task" --json "reference_kernels/vendor/$name.cu" > "$out/$task.json" 2> "$out/$task.err"
	python3 - "$out/$task.json" "$task" "$name" <<'PY' || status=1
import json, sys
path, task, name = sys.argv[1:]
try:
    r = json.load(open(path))
except ValueError:
    print(f"{task:<24} {name:<24} {'none':<8} (no JSON: see {path[:-5]}.err)")
    sys.exit(1)
num = lambda k: f"{r[k]:10.4f}" if isinstance(r.get(k), (int, float)) else f"{'-':>10}"
warnings = r.get("warnings") or (r.get("record") or {}).get("warnings") or []
notes = [r.get("reason") or ""] + [w for w in warnings if "vendor" in w]
print(f"{task:<24} {name:<24} {r['verdict']:<8} {num('time_ms')} {num('ref_time_ms')} {num('vendor_time_ms')}  "
      + " | ".join(n[:160] for n in notes if n))
sys.exit(r["verdict"] != "ok")
PY
done <<<"$pairs"
exit $status
