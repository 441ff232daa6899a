#!/usr/bin/env python3
"""The table of one bench/run_hopper_attention_ab.sh call: for each head dim, every
program's kernels (the twin's `nvcc` rows, each cudajit binary's checked and unchecked
rows) with their median time in each round, the median over rounds, the spread, and the
ratio to the twin's `nvcc` row (median over median; and the range of the same-round
ratios); then each process's window of the nvidia-smi samples (lowest SM clock,
highest power and temperature), Nsight Compute's cycles at base clock where it ran, and
cuDNN once.

    report_hopper_attention_ab.py header.txt results.txt windows.txt smi.csv [ncu.csv]
"""

import csv
import re
import statistics
import sys
from datetime import datetime

LINE = re.compile(r"^RESULT (\d+) (\S+) attention_d(\d+)\.(\S+) ([0-9.]+)")
KEEP = ("nvcc", "cudajit", "cudajit_nocheck", "cudnn")


def stamp(text):
    day, clock = text.split()[:2]
    clock = clock[:15]  # microseconds at most
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M:%S.%f")


def read_results(path):
    runs = {}  # (d, program.impl) -> {round: us}
    for line in open(path):
        m = LINE.match(line.strip())
        if m and m[4] in KEEP:
            key = (int(m[3]), f"{m[2]}.{m[4]}")
            runs.setdefault(key, {})[int(m[1])] = float(m[5])
    return runs


def print_times(runs):
    rounds = sorted({r for v in runs.values() for r in v if r > 0})
    head = f"{'D':>4} {'program.kernel':<26}" + "".join(f"{'r' + str(r):>9}" for r in rounds)
    head += f" {'median':>9} {'spread':>7} {'/ twin':>7} {'same-round / twin':>18}"
    print(head)
    print("-" * len(head))
    for d in sorted({d for d, _ in runs}, reverse=True):
        twin = runs.get((d, "twin.nvcc"), {})
        twin_median = statistics.median(twin.values()) if twin else None
        for (dd, name), by_round in sorted(runs.items()):
            if dd != d:
                continue
            times = list(by_round.values())
            median = statistics.median(times)
            cells = "".join(f"{by_round[r]:9.1f}" if r in by_round else f"{'-':>9}" for r in rounds)
            spread = f"{(max(times) - min(times)) / median * 100:6.1f}%"
            ratio = f"{median / twin_median:7.3f}" if twin_median else f"{'-':>7}"
            same = [by_round[r] / twin[r] for r in by_round if r in twin]
            same_text = f"{min(same):.3f}-{max(same):.3f}" if same and name != "twin.nvcc" else "-"
            print(f"{d:>4} {name:<26}{cells} {median:9.1f} {spread:>7} {ratio} {same_text:>18}")
        print()


def print_windows(windows_path, smi_path):
    samples = []
    try:
        for line in open(smi_path):
            parts = [p.strip() for p in line.split(",")]
            try:
                samples.append((stamp(parts[0]), float(parts[1]), float(parts[2]), float(parts[3]), parts[4:]))
            except (ValueError, IndexError):
                continue
    except OSError:
        pass
    print("process windows (nvidia-smi every 50 ms): round, program, samples, lowest SM MHz,"
          " highest W, highest °C, clock-event reasons seen")
    for line in open(windows_path):
        if len(line.split()) != 6:
            continue
        r, name, d0, t0, d1, t1 = line.split()
        start, end = stamp(f"{d0} {t0}"), stamp(f"{d1} {t1}")
        inside = [s for s in samples if start <= s[0] <= end]
        if not inside:
            print(f"  {r:>2} {name:<12} no samples")
            continue
        reasons = sorted({x for s in inside for x in s[4] if x not in ("", "0x0000000000000000")})
        print(f"  {r:>2} {name:<12} {len(inside):4} {min(s[1] for s in inside):6.0f}"
              f" {max(s[2] for s in inside):7.1f} {max(s[3] for s in inside):4.0f}  {' '.join(reasons) or '-'}")


def print_ncu(path):
    """`program,<ncu --csv row>` lines: each program's header row, then one row per metric."""
    columns, kernels = None, {}
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return
    for line in lines:
        program, _, rest = line.partition(",")
        row = next(csv.reader([rest]), [])
        if row[:1] == ["ID"]:
            columns = row
            continue
        if not columns or len(row) != len(columns):
            continue
        cell = dict(zip(columns, row))
        key = (program, int(cell["ID"]), cell.get("Kernel Name", "?")[:40])
        kernels.setdefault(key, {})[cell["Metric Name"]] = (cell["Metric Value"], cell["Metric Unit"])
    if not kernels:
        return
    names = sorted({m for v in kernels.values() for m in v})
    print("Nsight Compute, D = 128, clocks locked at base (launch 0/1: cudajit checked/unchecked,"
          " the twin's nvcc twice)")
    print(f"  {'program':<8} {'launch':>6} {'kernel':<40} " + " ".join(f"{n:>28}" for n in names))
    for (program, launch, kernel), metrics in sorted(kernels.items()):
        values = " ".join(f"{metrics.get(n, ('-', ''))[0] + ' ' + metrics.get(n, ('', ''))[1]:>28}" for n in names)
        print(f"  {program:<8} {launch:>6} {kernel:<40} {values}")
    print()


def main():
    header, results, windows, smi = sys.argv[1:5]
    print(open(header).read().rstrip())
    print()
    runs = read_results(results)
    print_times(runs)
    print_windows(windows, smi)
    print()
    if len(sys.argv) > 5:
        print_ncu(sys.argv[5])
    print("bar: cudajit (checked) ≤ 1.05 × its nvcc twin's time; ≥ 0.80 × cuDNN's rate"
          " (cuDNN: the torch.cudnn rows, one run)")


if __name__ == "__main__":
    main()
