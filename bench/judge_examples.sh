#!/usr/bin/env bash
# Judges every bundled example candidate of one backend (examples/cpu/<task>.c or examples/cuda/<task>.cu)
# through `kforge submit` and prints one row per example (task, verdict, time_ms, ref_time_ms,
# vendor_time_ms, speedup) and a count line "N of M ok". Exit 0 when every example got ok, 1 otherwise.
#   bash bench/judge_examples.sh [--backend cpu|cuda] [--out DIR] [--budget S] [--resume] [TASK...]
#   --backend B   cpu (default) or cuda (needs the GPU machine, or nothing but errors comes out)
#   --out DIR     where the per-example JSON and logs go (default $OUT/examples, else /tmp/kforge-examples)
#   --budget S    stop starting new submissions after S seconds; the rest are listed "not judged"
#                 (default: none on the CPU, 480 on CUDA, so one device call of 600 s brings the table back)
#   --resume      keep the verdicts already in DIR for example files that have not changed since (an earlier
#                 call stopped by its budget): judge only the rest
#   TASK...       judge only these (default: every example file of the backend)
# On CUDA the candidates, references and vendor baselines are first compiled into the judge's cache,
# several at once (build/bench/cuda_examples_build --trusted), so each submission finds them built.
# DIR/examples.tsv holds the rows with each reference's speed of light (t_sol_ms, bound) and the device,
# the input of bench/task_table.sh. KF_LIBS: a library directory for kforge's own programs (the GPU bundle).
set -u
cd "$(dirname "$0")/.."
backend=cpu out=${OUT:+$OUT/examples} budget= resume=0 tasks=()
while [ $# -gt 0 ]; do
	case $1 in
	--backend) backend=$2; shift ;;
	--out) out=$2; shift ;;
	--budget) budget=$2; shift ;;
	--resume) resume=1 ;;
	-*) echo "judge_examples: unknown option $1" >&2; exit 2 ;;
	*) tasks+=("$1") ;;
	esac
	shift
done
case $backend in
cpu) ext=c call_timeout=10 ;;
cuda) ext=cu call_timeout=5 budget=${budget:-480} ;;
*) echo "judge_examples: --backend is cpu or cuda, not $backend" >&2; exit 2 ;;
esac
out=${out:-/tmp/kforge-examples}
mkdir -p "$out"
if [ ${#tasks[@]} = 0 ]; then
	for f in examples/$backend/*.$ext; do tasks+=("$(basename "$f" ".$ext")"); done
fi
kf() { LD_LIBRARY_PATH=${KF_LIBS:-${LD_LIBRARY_PATH:-}} "$@"; }
db=$out/examples.db
rm -f "$out/examples.tsv"
[ $resume = 1 ] || rm -f "$db" "$out"/*.json "$out"/*.err "$out"/*.judged
start=$(date +%s)

# make bench puts the builder in build/bench/; the GPU bundle (bench/gpu-check.sh) in build/.
builder=$(ls build/bench/cuda_examples_build build/cuda_examples_build 2>/dev/null | head -1)
if [ "$backend" = cuda ] && [ -n "$builder" ]; then
	# Parallel compiles into the shared cache; what fails here fails again, with its log, in the submit.
	printf '%s\n' "${tasks[@]}" | xargs -P "$(nproc)" -n 1 bash -c \
		'LD_LIBRARY_PATH=${KF_LIBS:-${LD_LIBRARY_PATH:-}} "$0" --trusted "$1"' "$builder" \
		> "$out/prebuild.log" 2>&1
	echo "prebuilt in $(($(date +%s) - start)) s: $(grep -c ' ok ' "$out/prebuild.log") of ${#tasks[@]} candidates" \
		"(log $out/prebuild.log)"
fi

fmt='%-28s %-18s %10s %11s %14s %8s\n'
printf "$fmt" task verdict time_ms ref_time_ms vendor_time_ms speedup
columns='task verdict time_ms ref_time_ms vendor_time_ms speedup t_sol_ms bound device reason'
tr ' ' '\t' <<<"$columns" > "$out/examples.tsv"
n=0 ok=0
for t in "${tasks[@]}"; do
	n=$((n + 1))
	src=examples/$backend/$t.$ext
	if [ $resume = 1 ] && cmp -s "$src" "$out/$t.judged" && grep -q '"verdict"' "$out/$t.json" 2>/dev/null; then
		: # judged by an earlier call
	elif [ -n "$budget" ] && [ $(($(date +%s) - start)) -ge "$budget" ]; then
		printf "$fmt" "$t" "not judged" - - - -
		printf '%s\tnot_judged\t\t\t\t\t\t\t\tthe %s s budget was spent\n' "$t" "$budget" >> "$out/examples.tsv"
		continue
	else
		kf build/kforge submit --backend "$backend" --task "$t" --db "$db" --as examples \
			--call-timeout "$call_timeout" --deadline 120 --json "$src" > "$out/$t.json" 2> "$out/$t.err"
		cp "$src" "$out/$t.judged" 2>/dev/null
	fi
	# One TSV row appended, one table row printed; exit 0 when the verdict is ok.
	python3 - "$out/$t.json" "$t" "$out/examples.tsv" "$fmt" <<'PY' && ok=$((ok + 1))
import json, sys
path, task, tsv, fmt = sys.argv[1:]
try:
    r = json.load(open(path))
except (OSError, ValueError):
    try:
        err = open(path[:-len(".json")] + ".err").read().strip()
    except OSError:
        err = ""
    r = {"verdict": "no_result", "reason": "kforge printed no JSON: " + (err or "(nothing on stderr)")}
def num(k, f="%.4g"):
    v = r.get(k)
    return f % v if isinstance(v, (int, float)) else ""
verdict = r.get("verdict") or "none"
cols = [task, verdict, num("time_ms"), num("ref_time_ms"), num("vendor_time_ms"), num("speedup", "%.3f")]
dev = (r.get("machine") or {}).get("device", "")
reason = (r.get("reason") or "").replace("\t", " ").replace("\n", " ")[:200]
with open(tsv, "a") as f:
    f.write("\t".join(cols + [num("t_sol_ms"), r.get("bound") or "", dev, reason]) + "\n")
sys.stdout.write(fmt.replace("\\n", "\n") % tuple(c or "-" for c in cols))
if verdict != "ok":
    print("%28s %s" % ("", reason[:110]))
sys.exit(verdict != "ok")
PY
done
echo "$ok of $n ok ($(($(date +%s) - start)) s; rows in $out/examples.tsv)"
[ "$ok" = "$n" ]
