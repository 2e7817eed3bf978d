"""Independent timing of the fidelity probes with PyTorch and CUDA events, the way kforge times:
fresh input values and an L2 flush (a write over twice the L2) before every timed call, events
around the operation alone. A short spin kernel is queued ahead of the start event, so the GPU is
still busy while Python and PyTorch's dispatcher enqueue the operation: the events then time the
device's work, not that host overhead (kforge's runner calls kf_launch from C, where it is a few
microseconds). Prints one JSON object: {probe: [median_ms per repeat]}.
Usage: python3 bench/fidelity/torch_time.py [REPEATS] [ITERS]"""
import json
import sys

import torch

REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
ITERS = int(sys.argv[2]) if len(sys.argv) > 2 else 100
GEMM = 4096
COPY_ELEMS = 1 << 28  # 1 GiB of fp32
SPIN_CYCLES = 2_000_000  # about 1 ms at H100 clocks: longer than the host's enqueueing


def timed(make_inputs, op):
    dev = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    medians = []
    for _ in range(REPEATS):
        samples = []
        for it in range(ITERS + 2):  # two warm-up calls, as kforge makes
            args = make_inputs()
            flush.fill_(it & 0xFF)
            torch.cuda.synchronize()
            torch.cuda._sleep(SPIN_CYCLES)
            start.record()
            op(*args)
            stop.record()
            torch.cuda.synchronize()
            if it >= 2:
                samples.append(start.elapsed_time(stop))
        samples.sort()
        medians.append(samples[len(samples) // 2])
    return medians


def main():
    a = torch.empty(GEMM, GEMM, dtype=torch.bfloat16, device="cuda")
    b = torch.empty(GEMM, GEMM, dtype=torch.bfloat16, device="cuda")
    c = torch.empty(GEMM, GEMM, dtype=torch.bfloat16, device="cuda")
    x = torch.empty(COPY_ELEMS, dtype=torch.float32, device="cuda")
    y = torch.empty(COPY_ELEMS, dtype=torch.float32, device="cuda")

    def gemm_inputs():
        a.normal_()
        b.normal_()
        return (a, b, c)

    def copy_inputs():
        x.normal_()
        return (x, y)

    out = {
        "matmul_bf16_cublas": timed(gemm_inputs, lambda a, b, c: torch.matmul(a, b, out=c)),
        "copy_f32": timed(copy_inputs, lambda x, y: y.copy_(x)),
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
