#!/usr/bin/env python3
"""The Hopper attention table (issue 24) from the `RESULT` lines of one
bench/run_hopper_attention.sh run: per head dim, each implementation's median time,
TFLOP/s, its rate as a fraction of PyTorch's cuDNN backend (the bar: ≥ 0.80 for cudajit)
and of the FLASH_ATTENTION backend, and, for cudajit, the ratio to its nvcc twin (time over
time, the twin of the same variant suffix: ≤ 1.05 is the bar), plus the sampled error
against the f64 reference.

    report_hopper_attention.py results.txt [header.txt]
"""

import re
import sys

LINE = re.compile(r"^RESULT attention_d(\d+)\.(\S+) ([0-9.]+) (\S+)")
VARIANTS = ["", "_overlap", "_pingpong"]
ORDER = ["cudnn", "flash"] + ["nvcc" + v for v in VARIANTS] + [
    "cudajit" + v + c for v in VARIANTS for c in ("", "_nocheck")]


def main():
    results = {}
    with open(sys.argv[1]) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            d, impl, us, extra = int(m[1]), m[2], float(m[3]), m[4]
            fields = dict(kv.split("=", 1) for kv in extra.split(","))
            results.setdefault(d, {})[impl] = (us, float(fields["flops"]), fields.get("error", "-"))
    if len(sys.argv) > 2:
        print(open(sys.argv[2]).read().rstrip())
        print()
    header = (f"{'attention':<10} {'implementation':<26} {'µs':>9} {'TFLOP/s':>8} "
              f"{'/ cuDNN':>8} {'/ FLASH':>8} {'/ nvcc':>7} {'error':>9}")
    print(header)
    print("-" * len(header))
    for d in sorted(results, reverse=True):
        row = results[d]
        cudnn = row.get("cudnn", (None,))[0]
        flash = row.get("flash", (None,))[0]
        for impl in sorted(row, key=lambda i: ORDER.index(i) if i in ORDER else len(ORDER)):
            us, flops, error = row[impl]
            # rates: library time over ours (1.0 = as fast as the library)
            vs_cudnn = f"{cudnn / us:8.3f}" if cudnn else "-"
            vs_flash = f"{flash / us:8.3f}" if flash else "-"
            variant = impl.removeprefix("cudajit").removesuffix("_nocheck")
            twin = row.get("nvcc" + variant, (None,))[0]
            ratio = f"{us / twin:7.3f}" if twin and impl.startswith("cudajit") else ""
            print(f"D={d:<8} {impl:<26} {us:9.1f} {flops / us * 1e-6:8.1f} {vs_cudnn:>8} "
                  f"{vs_flash:>8} {ratio:>7} {error:>9}")
    print()
    print("bars: cudajit (checked) ≥ 0.80 × cuDNN's rate; cudajit ≤ 1.05 × its nvcc twin's time")


if __name__ == "__main__":
    main()
