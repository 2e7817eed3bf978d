#!/usr/bin/env bash
# One call on the GPU machine: the CUDA reference checks (starter and suite), `make test-gpu`'s
# binary (every CUDA example and hostile kernel through `kforge submit --backend cuda`), then a
# short table. Build and bundle here first (bash bench/gpu-bundle.sh), then run through the device
# tool with carry [".gpu/bin", ".gpu/lib", ".gpu/checkers.tar.xz"]:
#   bash bench/gpu-check.sh [--cold] [--quick] [--submit-all] [--cost] [--fidelity] [--ref-fidelity] [--throughput]
#                           [--examples] [--no-tests]
#   --cold          first, before anything else touches the GPU: bench/cold_stability.sh (starter examples,
#                   5 submissions each into new databases, spread of the medians)
#   --quick       skip the reference-kernel benchmarks (else KF_CHECKERS names which: refcheck suitecheck fusioncheck)
#   --submit-all  also submit every example and hostile kernel one by one (a verdict table)
#   --examples    judge every examples/cuda/*.cu (bench/judge_examples.sh --backend cuda; compiles prebuilt in
#                 parallel): task, verdict, time_ms, ref_time_ms, vendor_time_ms, speedup and "N of M ok";
#                 the rows with each reference's t_sol_ms come back in $OUT/examples.tsv (bench/task_table.sh's
#                 input). It stops judging after KF_EXAMPLES_BUDGET_S (480) s, and a second call on the warm
#                 machine judges only what is left (or changed); pair it with --quick --no-tests.
#   --cost        per-candidate overhead (build/bench/eval_cost --backend cuda)
#   --fidelity    timing fidelity against PyTorch (bench/fidelity.sh)
#   --ref-fidelity  the judge's ref_time_ms against a standalone timer for every CUDA reference
#                 (bench/ref_fidelity.sh; after --examples, in this call or an earlier one on the warm machine,
#                 it reuses those submissions); the table keeps the header and the FAIL rows
#   --throughput  kforge run's throughput (build/bench/throughput --backend cuda --gpus N --samples 8, N the
#                 visible GPUs, at most 2; KF_THROUGHPUT_SAMPLES for another count, KF_THROUGHPUT_ARGS for more
#                 options such as --no-serial; about 4 minutes): serial, 1 GPU and N GPUs, the leaderboards compared
#   --no-tests    skip make test-gpu's binary
#   --profile     profiler feedback (issue 21): `kforge run --backend cuda` against the scripted server on
#                 vector_add (build/bench/profile_check), printing the stored CUPTI profile and the refinement
#                 prompt's quoted metrics; then the first hostile CUDA kernel of each expected verdict profiled
#                 and judged, its verdict as expected (build/profile_check --hostile tests/kernels/cuda: all of them)
#   --multi       level 4 on every GPU (KF_MULTI_GPUS=N for fewer; needs 2): each level-4 example and each
#                 hostile kernel of tests/kernels/cuda_multi/ through kforge submit --gpus N, then the reference
#                 table (time, achieved NVLink bandwidth, % of NCCL); with --quick --no-tests, under 4 minutes
#   --v2cuda      the generic op library's own checks (bench/cuda_generic_check.cu, built there with nvcc), then the
#                 references on it (cuda_suitecheck --list-generic): each against its oracle
#                 and timed at its bench shape beside its vendor baseline (bench/cuda_suitecheck.sh); their
#                 examples go through kforge submit with every other example (--examples)
# Full logs and JSON land in $OUT (or /tmp/kforge-gpu-out).
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/kforge-gpu-out}
mkdir -p "$out" build
cp .gpu/bin/* build/
[ -f .gpu/checkers.tar.xz ] && tar xJf .gpu/checkers.tar.xz -C .gpu
# Only kforge's own programs see the carried libraries (not python3 or nvidia-smi).
libs=$PWD/.gpu/lib
kf() { LD_LIBRARY_PATH=$libs "$@"; }
export KFORGE_HOME=$PWD KFORGE_CACHE=/tmp/kforge-cache KFORGE_DB=$out/kforge.db
table=$out/table.txt
: > "$table"
row() { printf '%-44s %-20s %-20s %s\n' "$@" | tee -a "$table"; }
# The device tool ends a call at 600 s and then brings back only a few files: every part runs in its
# own process group under a limit, all of them inside KF_GPU_BUDGET_S (default 560 s) from the start,
# so the archive and the table are always written. A part cut short prints "exit 124".
start_s=$(date +%s)
budget_s=${KF_GPU_BUDGET_S:-560}
part() { # limit_s command...: runs command in its own session; exit 124 when killed at its limit
	local lim=$1 left=$(( budget_s - ($(date +%s) - start_s) - 10 ))
	shift
	[ "$left" -lt "$lim" ] && lim=$left
	[ "$lim" -le 0 ] && return 124
	setsid "$@" &
	local pid=$! t=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$t" -ge "$lim" ]; then
			kill -TERM -- "-$pid" 2>/dev/null; sleep 2; kill -KILL -- "-$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 1; t=$((t + 1))
	done
	wait "$pid"
}
examples=0 # --examples

cold=0 quick=0 submit_all=0 cost=0 fidelity=0 ref_fidelity=0 throughput=0 tests=1 profile=0 multi=0 v2cuda=0
for a in "$@"; do
	case $a in
	--cold) cold=1 ;;
	--ref-fidelity) ref_fidelity=1 ;;
	--quick) quick=1 ;;
	--examples) examples=1 ;;
	--submit-all) submit_all=1 ;;
	--cost) cost=1 ;;
	--fidelity) fidelity=1 ;;
	--throughput) throughput=1 ;;
	--no-tests) tests=0 ;;
	--profile) profile=1 ;;
	--multi) multi=1 ;;
	--v2cuda) v2cuda=1 ;;
	*) echo "gpu-check: unknown option $a" >&2; exit 2 ;;
	esac
done

if [ $cold = 1 ]; then
	KF_LIBS=$libs OUT=$out part 240 bash bench/cold_stability.sh 5 > "$out/cold.log" 2>&1
	row "cold-machine stability (bench/cold_stability.sh)" "exit $?" "" ""
	grep -E " (candidate|reference|vendor) | verdicts " "$out/cold.log" | tee -a "$table"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

# Every CUDA reference of the suite against its oracle, and timed at its bench shape. The
# checkers are built here (bash bench/cuda_<name>.sh --build-only) and carried in .gpu/.
if [ $quick = 0 ]; then
	for check in ${KF_CHECKERS:-refcheck suitecheck fusioncheck}; do # KF_CHECKERS: fewer of them
		[ -d .gpu/$check ] || continue
		# KF_SUITECHECK_TASKS: the suite checker on these tasks only (a call's share of the suite)
		part 300 bash bench/cuda_$check.sh --run-only $([ $check = suitecheck ] && echo "${KF_SUITECHECK_TASKS:-}") \
			> "$out/$check.log" 2>&1
		row "CUDA references (bench/cuda_$check.sh)" "exit $?" "" "$(grep -c PASS "$out/$check.log") PASS rows, $(grep -c FAIL "$out/$check.log") FAIL rows"
	done
fi

if [ $v2cuda = 1 ]; then
	check=build/cuda_generic_check # bench/gpu-bundle.sh builds it; else nvcc here
	if [ ! -x $check ]; then
		check=/tmp/kforge-generic-check
		${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)} -O2 -std=c++17 -arch=native -Ireference_kernels \
			bench/cuda_generic_check.cu -o $check > "$out/v2cuda_generic.log" 2>&1
	fi
	$check >> "$out/v2cuda_generic.log" 2>&1
	row "generic op library (bench/cuda_generic_check.cu)" "exit $?" "" "$(tail -1 "$out/v2cuda_generic.log")"
	grep FAIL "$out/v2cuda_generic.log" | tee -a "$table" >/dev/null
	v2=$(.gpu/suitecheck/cuda_suitecheck --list-generic)
	part 300 bash bench/cuda_suitecheck.sh --run-only $v2 > "$out/v2cuda_refs.log" 2>&1
	row "generic CUDA references (suitecheck)" "exit $?" "" "$(grep -c '^  ok' "$out/v2cuda_refs.log") ok checks, $(grep -c '^  FAIL' "$out/v2cuda_refs.log") FAIL"
	sed -n '/^task /,$p' "$out/v2cuda_refs.log" | tee -a "$table" >/dev/null
fi

if [ $cost = 1 ]; then
	LD_LIBRARY_PATH=$libs part 150 build/eval_cost --backend cuda 5 > "$out/eval_cost.log" 2>&1
	row "per-candidate overhead (eval_cost)" "exit $?" "" ""
	grep -E '^[a-z_0-9]+$|per-candidate|first evaluation' "$out/eval_cost.log" | tee -a "$table"
fi
if [ $fidelity = 1 ]; then
	KF_LIBS=$libs OUT=$out part 180 bash bench/fidelity.sh 5 > "$out/fidelity.log" 2>&1
	row "timing fidelity (bench/fidelity.sh)" "exit $?" "" ""
	tail -6 "$out/fidelity.log" | tee -a "$table"
fi

if [ $throughput = 1 ]; then
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
	[ "$ngpu" -gt 2 ] && ngpu=2
	# 8 samples a task: each judge's session per task (trusted kernels, reference runners, drawn inputs)
	# is built once and then serves several candidates, as in a real run's rounds
	# KF_THROUGHPUT_ARGS: more of its options (--no-serial: more samples in the same time)
	kf build/throughput --backend cuda --gpus "$ngpu" --samples "${KF_THROUGHPUT_SAMPLES:-8}" ${KF_THROUGHPUT_ARGS:-} \
		> "$out/throughput.log" 2>&1
	row "kforge run throughput (bench/throughput)" "exit $?" "$ngpu GPU(s)" "$(tail -1 "$out/throughput.log")"
	grep -E 'candidates per minute|judging share|judge phases|runner start|compiled ahead|reply to verdict|against|leaderboard' \
		"$out/throughput.log" | tee -a "$table" >/dev/null
fi

if [ $profile = 1 ]; then
	kf env KFORGE_BIN=build/kforge build/profile_check --backend cuda --hostile tests/kernels/cuda --sample \
		--db "$out/profile.db" > "$out/profile.log" 2>&1
	row "profiler feedback (bench/profile_check)" "exit $?" "" "$(grep -E 'profile check|hostile corpus' "$out/profile.log" | tr '\n' ' ')"
	sed -n '/^stored profile/,/^kforge run exit/p' "$out/profile.log" | tee -a "$table"
fi

if [ $tests = 1 ] && [ -x build/kforge-gpu-tests ]; then
	# Every example, one parameter each, is --examples' work (resumable, its compiles in parallel): here
	# the rest of the GPU suite, which fits one device call.
	LD_LIBRARY_PATH=$libs part 540 build/kforge-gpu-tests --jobs 1 --verbose \
		--filter '!(examples_cuda/every_example_is_judged_ok)' > "$out/test-gpu.log" 2>&1
	row "make test-gpu" "exit $?" "" "$(grep Synthesis "$out/test-gpu.log" | tail -1)"
	grep -E -A2 '^\[----\].*Assertion Failed' "$out/test-gpu.log" | head -40 | tee -a "$table"
	grep -E '^\[(FAIL|SKIP)\]' "$out/test-gpu.log" | head -20 | tee -a "$table"
fi

if [ $examples = 1 ]; then
	ex=/tmp/kforge-gpu-examples # outlives the call, so the next one on the warm machine resumes
	# KF_EXAMPLES_TASKS: only these examples (space-separated task names)
	KF_LIBS=$libs bash bench/judge_examples.sh --backend cuda --out "$ex" --resume \
		--budget "${KF_EXAMPLES_BUDGET_S:-480}" ${KF_EXAMPLES_TASKS:-} > "$out/examples.log" 2>&1
	row "CUDA examples (bench/judge_examples.sh)" "exit $?" "" "$(tail -1 "$out/examples.log")"
	grep -v '^prebuilt' "$out/examples.log" | tee -a "$table" >/dev/null
	cp "$ex/examples.tsv" "$out/examples.tsv" 2>/dev/null
	cp -r "$ex" "$out/examples"
fi

if [ $ref_fidelity = 1 ]; then
	# The judge's side comes from the examples' submissions where --examples judged them (this call or an
	# earlier one on this machine): only the standalone timings are new.
	from=(); [ -d /tmp/kforge-gpu-examples ] && from=(--from /tmp/kforge-gpu-examples)
	only=(); [ -n "${KF_REF_TASKS:-}" ] && only=(--tasks "$KF_REF_TASKS") # KF_REF_TASKS: a,b,... only these
	KF_LIBS=$libs OUT=$out part 550 bash bench/ref_fidelity.sh "${from[@]}" "${only[@]}" > "$out/ref_fidelity.log" 2>&1
	row "reference fidelity (bench/ref_fidelity.sh)" "exit $?" "" "$(tail -1 "$out/ref_fidelity.log")"
	grep -E "^reference fidelity|^task | FAIL " "$out/ref_fidelity.log" | tee -a "$table" >/dev/null
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
if [ $multi = 1 ]; then
	gpus=${KF_MULTI_GPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
	[ "$gpus" -gt 8 ] && gpus=8
	nvidia-smi topo -m > "$out/topo.txt" 2>&1
	msubmit() { # name file task expect
		local t0=$(date +%s%N)
		kf build/kforge submit --backend cuda --gpus "$gpus" --task "$3" --call-timeout 5 --json "$2" > "$out/$1.json" 2> "$out/$1.err"
		local rc=$? t1=$(date +%s%N)
		local v=$(python3 -c "import json,sys; r=json.load(open('$out/$1.json')); print(r['verdict'], '|', (r.get('time_ms') or 0), '|', r['reason'][:110])" 2>/dev/null || echo "none | | $(head -c 150 "$out/$1.err")")
		row "$1 (${gpus} GPUs)" "expect $4" "got ${v%% |*}" "rc=$rc $(( (t1 - t0) / 100000000 ))ds ${v#* | }"
	}
	if [ "$gpus" -lt 2 ]; then
		row "multi-GPU (level 4)" "needs 2 GPUs" "got $gpus" ""
	else
		for f in tasks/level4/*.json; do
			t=$(basename "$f" .json)
			msubmit "multi_example_$t" "examples/cuda_multi/$t.cu" "$t" ok
		done
		for f in tests/kernels/cuda_multi/*.cu; do
			hdr=$(head -1 "$f")
			msubmit "multi_$(basename "$f" .cu)" "$f" "$(sed -n 's/.*task=\([a-z0-9_]*\).*/\1/p' <<<"$hdr")" \
				"$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<<"$hdr")"
		done
		# The reference table: each side's median, the NVLink bytes one GPU must send over that time, and the
		# reference and the example as a share of NCCL's time (100% = as fast as NCCL).
		OUT=$out python3 - <<'PY' | tee -a "$table"
import glob, json, os
out = os.environ["OUT"]
print("%-26s %-9s %9s %9s %9s %9s %9s %9s %9s %7s %7s" % ("task", "machine", "t_SOL ms", "ref ms", "ref GB/s", "NCCL ms",
      "NCCL GB/s", "ex ms", "ex GB/s", "ref%NCCL", "ex%NCCL"))
for path in sorted(glob.glob(out + "/multi_example_*.json")):
    try:
        r = json.load(open(path))
    except ValueError:
        continue
    nv = r.get("nvlink") or {}
    g = lambda k: (nv.get(k) or 0) / 1e9
    ref, ven, ex = r.get("ref_time_ms") or 0, r.get("vendor_time_ms") or 0, r.get("time_ms") or 0
    pct = lambda t: "%6.0f%%" % (100 * ven / t) if t and ven else "    n/a"
    print("%-26s %-9s %9.4f %9.4f %9.1f %9.4f %9.1f %9.4f %9.1f %7s %7s" % (r.get("task"), "x%s" % r.get("gpus"),
          r.get("t_sol_ms") or 0, ref, g("reference_bytes_s"), ven, g("vendor_bytes_s"), ex, g("candidate_bytes_s"),
          pct(ref), pct(ex)))
PY
	fi
fi
kf build/kforge submit --backend cpu --task vector_add examples/cpu/vector_add.c --json > "$out/cpu_vector_add.json" 2>&1
row "cpu example vector_add" "expect ok" "got $(python3 -c "import json; print(json.load(open('$out/cpu_vector_add.json'))['verdict'])" 2>/dev/null)" ""
nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv >> "$out/gpu.txt" 2>&1
# The device tool brings back at most 8 files: everything else travels in one archive.
(cd "$out" && tar czf results.tgz --remove-files ./*.json ./*.jsonl ./*.err ./*.log ./*.db ./cand ./examples 2>/dev/null)
echo "==== summary"
cat "$table"
