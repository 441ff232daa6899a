#!/usr/bin/env python3
"""The Hopper GEMM table (issue 24) from the `RESULT` lines of one bench/run_hopper.sh run:
per size, each implementation's median time, TFLOP/s, % of cuBLAS (torch.matmul) and,
for cudajit, the ratio to its nvcc twin (time over time: ≤ 1.05 is the bar), plus the
sampled error against the f64 reference.

    report_hopper.py results.txt [header.txt]
"""

import re
import sys

LINE = re.compile(r"^RESULT gemm_bf16_(\d+)\.(\S+) ([0-9.]+) (\S+)")


def main():
    results = {}
    with open(sys.argv[1]) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            n, impl, us, extra = int(m[1]), m[2], float(m[3]), m[4]
            fields = dict(kv.split("=", 1) for kv in extra.split(","))
            results.setdefault(n, {})[impl] = (us, float(fields["flops"]), fields.get("error", "-"))
    if len(sys.argv) > 2:
        print(open(sys.argv[2]).read().rstrip())
        print()
    header = f"{'GEMM bf16':<16} {'implementation':<28} {'µs':>10} {'TFLOP/s':>8} {'% cuBLAS':>9} {'/ nvcc':>7} {'error':>9}"
    print(header)
    print("-" * len(header))
    variants = ["", "_setmaxnreg", "_persistent", "_persistent_setmaxnreg", "_cpasync"]
    order = ["cublas"] + ["nvcc" + v for v in variants] + [
        "cudajit" + v + c for v in variants for c in ("", "_nocheck")]
    for n in sorted(results):
        row = results[n]
        cublas = row.get("cublas", (None,))[0]
        for impl in sorted(row, key=lambda i: order.index(i) if i in order else len(order)):
            us, flops, error = row[impl]
            pct = f"{100 * cublas / us:8.1f}%" if cublas else "-"
            # cudajit against the twin of the same kernel: the same variant suffix
            # (`cudajit_persistent_nocheck` against `nvcc_persistent`)
            variant = impl.removeprefix("cudajit").removesuffix("_nocheck")
            twin = row.get("nvcc" + variant, (None,))[0]
            ratio = f"{us / twin:7.3f}" if twin and impl.startswith("cudajit") else ""
            print(f"{n}³{'':<{15 - len(str(n))}} {impl:<28} {us:10.1f} {flops / us * 1e-6:8.1f} {pct:>9} {ratio:>7} {error:>9}")


if __name__ == "__main__":
    main()
