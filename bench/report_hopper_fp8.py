#!/usr/bin/env python3
"""The fp8 Hopper GEMM table (issue 24) from the `RESULT` lines of one
bench/run_hopper_fp8.sh run: per size, each implementation's median time, TFLOP/s, % of
cuBLASLt (torch._scaled_mm) and, for cudajit, the ratio to its nvcc twin (time over
time), plus the sampled error against the f64 reference.

    report_hopper_fp8.py results.txt [header.txt]
"""

import re
import sys

LINE = re.compile(r"^RESULT gemm_e4m3_(\d+)\.(\S+) ([0-9.]+) (\S+)")
ORDER = ["cublaslt", "nvcc", "cudajit", "cudajit_nocheck"]


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
    header = f"{'GEMM e4m3→bf16':<16} {'implementation':<18} {'µs':>10} {'TFLOP/s':>8} {'% cuBLASLt':>11} {'/ nvcc':>7} {'error':>9}"
    print(header)
    print("-" * len(header))
    for n in sorted(results):
        row = results[n]
        reference = row.get("cublaslt", (None,))[0]
        twin = row.get("nvcc", (None,))[0]
        for impl in sorted(row, key=lambda i: ORDER.index(i) if i in ORDER else len(ORDER)):
            us, flops, error = row[impl]
            pct = f"{100 * reference / us:10.1f}%" if reference else "-"
            ratio = f"{us / twin:7.3f}" if twin and impl.startswith("cudajit") else ""
            print(f"{n}³{'':<{15 - len(str(n))}} {impl:<18} {us:10.1f} {flops / us * 1e-6:8.1f} {pct:>11} {ratio:>7} {error:>9}")


if __name__ == "__main__":
    main()
