"""Reference fidelity (issue 16.3), on the GPU machine: for every single-GPU task with a CUDA reference, a
correct candidate (examples/cuda/<task>.cu, else the reference itself with its tile headers inlined) is
submitted through `kforge submit --backend cuda` into a fresh database, and the judge's ref_time_ms is printed
beside a standalone timing of the same reference object (bench/ref_time: the .so kforge built and the bench
shape's inputs, both from bench/ref_so --args; inputs restored, outputs poisoned and an L2 flush before each
call; CUDA events around one call; median of ITERS) taken in the same run, and their ratio. Target: every
ratio within 3%. --from DIR takes the judge's result from DIR/<task>.json (bench/judge_examples.sh's output,
the same submission of the same example) where it is ok, instead of submitting again.
--probe also times each reference the ways the judge's set-up differs (events on an idle stream, the flush
right before the start, one area, an area in another process through CUDA IPC).
Usage (from bench/ref_fidelity.sh): ref_fidelity.py OUT KFORGE REF_SO REF_TIME [--tasks a,b] [--from DIR]
  [--probe] [--iters N] [--label L]"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TARGET = 0.03
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
PROBES = [
    ("events", ["--method", "events"]),
    ("busy", ["--method", "busy"]),
    ("area", ["--layout", "area"]),
    ("ipc", ["--ipc"]),
    ("ipc+events", ["--ipc", "--method", "events"]),
]


def flatten(path, roots, seen):
    """The source with its quoted includes inlined once each (#pragma once), so it builds as a candidate."""
    out = []
    for line in open(path):
        m = INCLUDE.match(line)
        if line.strip() == "#pragma once":
            continue
        if not m:
            out.append(line)
            continue
        for root in [os.path.dirname(path)] + roots:
            inc = os.path.normpath(os.path.join(root, m.group(1)))
            if os.path.exists(inc):
                break
        else:
            raise SystemExit(f"ref_fidelity: {path}: cannot find {m.group(1)}")
        if inc not in seen:
            seen.add(inc)
            out.append(flatten(inc, roots, seen))
    return "".join(out)


def judged(kforge, kf_env, out, label, name, cand, from_dir):
    """The judge's result for this task: the earlier submission in from_dir where it is ok, else a new one."""
    if from_dir:
        try:
            res = json.load(open(f"{from_dir}/{name}.json"))
            if res.get("verdict") == "ok":
                return res
        except (OSError, ValueError):
            pass
    env = dict(kf_env, KFORGE_DB=f"{out}/db_{label}_{name}.db")
    sub = subprocess.run([kforge, "submit", "--backend", "cuda", "--task", name, "--json", cand],
                         env=env, capture_output=True, text=True)
    try:
        return json.loads(sub.stdout)
    except ValueError:
        return {"verdict": "none", "reason": sub.stderr[-300:]}


def main():
    out, kforge, ref_so, ref_time = sys.argv[1:5]
    opts = sys.argv[5:]
    only = opts[opts.index("--tasks") + 1].split(",") if "--tasks" in opts else None
    iters = opts[opts.index("--iters") + 1] if "--iters" in opts else "100"
    label = opts[opts.index("--label") + 1] if "--label" in opts else "judge"
    from_dir = opts[opts.index("--from") + 1] if "--from" in opts else None
    probe = "--probe" in opts
    # Hundreds of MB a task, written and read back once: memory (/dev/shm) where there is one, never OUT.
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    inputs = tempfile.mkdtemp(prefix="kforge-ref-inputs-", dir=shm)
    os.makedirs(f"{out}/cand", exist_ok=True)
    kf_env = dict(os.environ)  # kforge's programs alone see its carried libraries (KF_LIBS)
    if os.environ.get("KF_LIBS"):
        kf_env["LD_LIBRARY_PATH"] = os.environ["KF_LIBS"]
    tasks = json.loads(subprocess.check_output([kforge, "tasks", "--json"], env=kf_env))
    tasks = [t for t in tasks if t["has_cuda_reference"] and not t.get("multi_gpu")]
    if only:
        tasks = [t for t in tasks if t["name"] in only]
    print(f"reference fidelity ({label}): judge ref_time_ms vs standalone bench/ref_time (sleep-held events, "
          f"median of {iters}), target within {TARGET:.0%}")
    print(f"{'task':<26} {'verdict':<10} {'judge ms':>9} {'alone ms':>9} {'ratio':>7}  {'':4} {'method':<10} disagree")
    rows = []
    for t in tasks:
        name = t["name"]
        spec = json.load(open(t["file"]))
        cand = f"examples/cuda/{name}.cu"
        if not os.path.exists(cand):
            cand = f"{out}/cand/{name}.cu"
            with open(cand, "w") as f:
                f.write(flatten(spec["reference"]["cuda"], ["reference_kernels"], set()))
        res = judged(kforge, kf_env, out, label, name, cand, from_dir)
        rec = {"task": name, "label": label, "judge": res}
        so = subprocess.run([ref_so, "--args", inputs, name], env=kf_env, capture_output=True,
                            text=True).stdout.split()
        std = None
        if len(so) >= 2 and so[1] != "-":
            base = [ref_time, "--so", so[1], "--iters", iters] + so[2:]
            runs = [("sleep", [])] + (PROBES if probe else [])
            for what, extra in runs:
                r = subprocess.run(base + extra, capture_output=True, text=True)
                try:
                    rec[what] = json.loads(r.stdout.strip().splitlines()[-1])
                except (ValueError, IndexError):
                    rec[what] = {"error": r.stderr[-300:]}
            std = rec["sleep"].get("median_ms")
        else:
            rec["sleep"] = {"error": " ".join(so[2:])}
        for f in os.listdir(inputs):
            os.remove(f"{inputs}/{f}")
        timing = res.get("timing", {})
        ref = res.get("ref_time_ms")
        ratio = ref / std if ref and std else float("nan")
        verdict = "PASS" if abs(ratio - 1) <= TARGET else "FAIL"
        method = timing.get("reference", {}).get("method", "-")
        dis = timing.get("reference", {}).get("clock_disagreements", "-")
        rows.append((name, verdict, rec))
        with open(f"{out}/ref_fidelity_{label}.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")
        ms = lambda x: f"{x:9.4f}" if isinstance(x, (int, float)) else f"{'-':>9}"
        why = "" if verdict == "PASS" else (res.get("reason") or rec["sleep"].get("error") or "")[:90]
        print(f"{name:<26} {str(res.get('verdict')):<10} {ms(ref)} {ms(std)} {ratio:7.3f}  {verdict:4} "
              f"{str(method):<10} {dis} {why}".rstrip(), flush=True)
    if probe:
        print(f"\nprobe ({label}): standalone medians in ms by set-up (enqueue: host time of the call, us)")
        cols = ["sleep"] + [p for p, _ in PROBES]
        print(f"{'task':<26} " + " ".join(f"{c:>10}" for c in cols) + f" {'enqueue':>8}")
        for name, _, rec in rows:
            cells = [rec.get(c, {}).get("median_ms") for c in cols]
            enq = rec.get("sleep", {}).get("enqueue_us_median")
            print(f"{name:<26} " + " ".join(f"{c:10.4f}" if c else f"{'-':>10}" for c in cells)
                  + (f" {enq:8.1f}" if enq else ""))
    shutil.rmtree(inputs, ignore_errors=True)
    failed = sum(1 for r in rows if r[1] != "PASS")
    print(f"{len(rows) - failed} of {len(rows)} within {TARGET:.0%}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
