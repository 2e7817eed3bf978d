#!/usr/bin/env bash
# One call on the GPU machine: the CUDA reference checks (starter and suite), `make test-gpu`'s
# binary (every CUDA example and hostile kernel through `kforge submit --backend cuda`), then a
# short table. Build and bundle here first (bash bench/gpu-bundle.sh), then run through the device
# tool with carry [".gpu"]:
#   bash bench/gpu-check.sh [--cold] [--quick] [--submit-all] [--cost] [--fidelity] [--ref-fidelity] [--no-tests]
#   --cold          first, before anything else touches the GPU: bench/cold_stability.sh (starter examples,
#                   5 submissions each into new databases, spread of the medians)
#   --quick       skip the reference-kernel benchmarks
#   --submit-all  also submit every example and hostile kernel one by one (a verdict table)
#   --cost        per-candidate overhead (build/bench/eval_cost --backend cuda)
#   --fidelity    timing fidelity against PyTorch (bench/fidelity.sh)
#   --ref-fidelity  the judge's ref_time_ms against a standalone timer for every CUDA reference
#                 (bench/ref_fidelity.sh)
#   --no-tests    skip make test-gpu's binary
#   --v2cuda      the generic op library's own checks (bench/cuda_generic_check.cu, built there with nvcc), then the
#                 references on it (cuda_suitecheck --list-generic): each against its oracle
#                 and timed at its bench shape beside its vendor baseline (bench/cuda_suitecheck.sh), then its
#                 examples/cuda candidate through kforge submit --backend cuda (verdict, candidate, reference and
#                 vendor times)
# Full logs and JSON land in $OUT (or /tmp/kforge-gpu-out).
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/kforge-gpu-out}
mkdir -p "$out" build
cp .gpu/bin/* build/
# Only kforge's own programs see the carried libraries (not python3 or nvidia-smi).
libs=$PWD/.gpu/lib
kf() { LD_LIBRARY_PATH=$libs "$@"; }
export KFORGE_HOME=$PWD KFORGE_CACHE=/tmp/kforge-cache KFORGE_DB=$out/kforge.db
table=$out/table.txt
: > "$table"
row() { printf '%-44s %-20s %-20s %s\n' "$@" | tee -a "$table" >/dev/null; }

cold=0 quick=0 submit_all=0 cost=0 fidelity=0 ref_fidelity=0 tests=1 v2cuda=0
for a in "$@"; do
	case $a in
	--cold) cold=1 ;;
	--ref-fidelity) ref_fidelity=1 ;;
	--quick) quick=1 ;;
	--submit-all) submit_all=1 ;;
	--cost) cost=1 ;;
	--fidelity) fidelity=1 ;;
	--no-tests) tests=0 ;;
	--v2cuda) v2cuda=1 ;;
	*) echo "gpu-check: unknown option $a" >&2; exit 2 ;;
	esac
done

if [ $cold = 1 ]; then
	KF_LIBS=$libs OUT=$out bash bench/cold_stability.sh 5 > "$out/cold.log" 2>&1
	row "cold-machine stability (bench/cold_stability.sh)" "exit $?" "" ""
	grep -E ' (candidate|reference|vendor) | verdicts ' "$out/cold.log" | tee -a "$table" >/dev/null
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

# Every CUDA reference of the suite against its oracle, and timed at its bench shape. The
# checkers are built here (bash bench/cuda_<name>.sh --build-only) and carried in .gpu/.
if [ $quick = 0 ]; then
	for check in refcheck suitecheck fusioncheck; do
		[ -d .gpu/$check ] || continue
		bash bench/cuda_$check.sh --run-only > "$out/$check.log" 2>&1
		row "CUDA references (bench/cuda_$check.sh)" "exit $?" "" "$(grep -c PASS "$out/$check.log") PASS rows, $(grep -c FAIL "$out/$check.log") FAIL rows"
	done
fi

if [ $v2cuda = 1 ]; then
	nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
	{ "$nvcc" -O2 -std=c++17 -arch=native -Ireference_kernels bench/cuda_generic_check.cu -o /tmp/kforge-generic-check &&
		/tmp/kforge-generic-check; } > "$out/v2cuda_generic.log" 2>&1
	row "generic op library (bench/cuda_generic_check.cu)" "exit $?" "" "$(tail -1 "$out/v2cuda_generic.log")"
	grep FAIL "$out/v2cuda_generic.log" | tee -a "$table" >/dev/null
	v2=$(.gpu/suitecheck/cuda_suitecheck --list-generic)
	bash bench/cuda_suitecheck.sh --run-only $v2 > "$out/v2cuda_refs.log" 2>&1
	row "generic CUDA references (suitecheck)" "exit $?" "" "$(grep -c '^  ok' "$out/v2cuda_refs.log") ok checks, $(grep -c '^  FAIL' "$out/v2cuda_refs.log") FAIL"
	sed -n '/^task /,$p' "$out/v2cuda_refs.log" | tee -a "$table" >/dev/null
	printf '%-24s %-8s %10s %10s %10s %8s\n' task verdict cand_ms ref_ms vendor_ms speedup | tee -a "$table"
	for t in $v2; do
		kf build/kforge submit --backend cuda --task "$t" --json "examples/cuda/$t.cu" > "$out/v2_$t.json" 2> "$out/v2_$t.err"
		python3 - "$t" "$out/v2_$t.json" <<-'PY' | tee -a "$table"
		import json, sys
		def ms(r, k):
		    return "%.4f" % r[k] if isinstance(r.get(k), (int, float)) else "-"
		try:
		    r = json.load(open(sys.argv[2]))
		except ValueError:
		    print("%-24s %-8s (no JSON: see v2_%s.err)" % (sys.argv[1], "none", sys.argv[1]))
		    sys.exit()
		sp = r.get("speedup")
		print("%-24s %-8s %10s %10s %10s %8s  %s" % (sys.argv[1], r["verdict"], ms(r, "time_ms"), ms(r, "ref_time_ms"),
		      ms(r, "vendor_time_ms"), "%.2f" % sp if isinstance(sp, (int, float)) else "-",
		      "" if r["verdict"] == "ok" else r.get("reason", "")[:100]))
		PY
	done
fi

if [ $cost = 1 ]; then
	kf build/eval_cost --backend cuda 5 > "$out/eval_cost.log" 2>&1
	row "per-candidate overhead (eval_cost)" "exit $?" "" ""
	grep -E '^[a-z_0-9]+$|per-candidate|first evaluation' "$out/eval_cost.log" | tee -a "$table"
fi
if [ $fidelity = 1 ]; then
	KF_LIBS=$libs OUT=$out bash bench/fidelity.sh 5 > "$out/fidelity.log" 2>&1
	row "timing fidelity (bench/fidelity.sh)" "exit $?" "" ""
	tail -6 "$out/fidelity.log" | tee -a "$table"
fi

if [ $ref_fidelity = 1 ]; then
	KF_LIBS=$libs OUT=$out bash bench/ref_fidelity.sh > "$out/ref_fidelity.log" 2>&1
	row "reference fidelity (bench/ref_fidelity.sh)" "exit $?" "" "$(tail -1 "$out/ref_fidelity.log")"
	grep -E 'FAIL' "$out/ref_fidelity.log" | head -20 | tee -a "$table" >/dev/null
fi

if [ $tests = 1 ] && [ -x build/kforge-gpu-tests ]; then
	kf build/kforge-gpu-tests --jobs 1 --verbose > "$out/test-gpu.log" 2>&1
	row "make test-gpu" "exit $?" "" "$(grep Synthesis "$out/test-gpu.log" | tail -1)"
	grep -E -A2 '^\[----\].*Assertion Failed' "$out/test-gpu.log" | head -40 | tee -a "$table"
	grep -E '^\[(FAIL|SKIP)\]' "$out/test-gpu.log" | head -20 | tee -a "$table"
fi

submit() { # name file task expect
	local t0=$(date +%s%N)
	kf build/kforge submit --backend cuda --task "$3" --call-timeout 5 --json "$2" > "$out/$1.json" 2> "$out/$1.err"
	local rc=$? t1=$(date +%s%N)
	local v=$(python3 -c "import json,sys; r=json.load(open('$out/$1.json')); print(r['verdict'], '|', (r.get('time_ms') or 0), '|', r['reason'][:110])" 2>/dev/null || echo "none | | $(head -c 150 "$out/$1.err")")
	row "$1" "expect $4" "got ${v%% |*}" "rc=$rc $(( (t1 - t0) / 100000000 ))ds ${v#* | }"
}

if [ $submit_all = 1 ]; then
	for f in examples/cuda/*.cu; do
		t=$(basename "$f" .cu)
		submit "example_$t" "$f" "$t" ok
	done
	for f in tests/kernels/cuda/*.cu; do
		hdr=$(head -1 "$f")
		task=$(sed -n 's/.*task=\([a-z0-9_]*\).*/\1/p' <<<"$hdr")
		expect=$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<<"$hdr")
		submit "$(basename "$f" .cu)" "$f" "$task" "$expect"
	done
fi
kf build/kforge submit --backend cpu --task vector_add examples/cpu/vector_add.c --json > "$out/cpu_vector_add.json" 2>&1
row "cpu example vector_add" "expect ok" "got $(python3 -c "import json; print(json.load(open('$out/cpu_vector_add.json'))['verdict'])" 2>/dev/null)" ""
nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv >> "$out/gpu.txt" 2>&1
# The device tool brings back at most 8 files: everything else travels in one archive.
(cd "$out" && tar czf results.tgz --remove-files ./*.json ./*.jsonl ./*.err ./*.log ./*.db ./cand 2>/dev/null)
echo "==== summary"
cat "$table"
