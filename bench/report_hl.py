#!/usr/bin/env python3
"""Turns the `RESULT <name> <median_us> <key=value,...>` lines of one bench/run_hl.sh
run (bench/hl.rs, bench/cupy/hl_reference.py, bench/cuda/hl_reference.cu) into the
high-level operations' table, with issue 12's bars checked.

Usage: report_hl.py RESULTS_FILE [HEADER_FILE]   (standard library only)

Each row sets one cudajit line beside the reference that times the same thing (see
bench/hl.rs's header). The header line starts with `op`; columns are whitespace-
separated, `-` for a missing value: `cargo xtask chart-hl` draws the cj/ref column.
Exit status 0 when every bar is met, 1 otherwise (the table is printed either way).
"""

import sys

# (row, cudajit result, reference result, reference label, bar on cj/ref or None)
ROWS = [
    ("saxpy.vectorize", "saxpy.vectorize", "saxpy.written", "written", 1.05),
    ("sum.device", "sum.device", "sum.device.cupy", "cupy", 1.05),
    ("sum.device_cub", "sum.device", "sum.cub", "cub", None),
    ("sum.host", "sum.host", "sum.host.cupy", "cupy", 1.05),
    ("scan", "scan", "scan.cub", "cub", 1.10),
    ("scan_cupy", "scan", "scan.cupy", "cupy", None),
    ("scan.alloc", "scan.alloc", "scan.alloc.cupy", "cupy", None),
    # The look-back scan's other tile sizes and layouts (bench/hl.rs's variants).
    ("scan.classic_16", "scan.classic_16", "scan.cub", "cub", None),
    ("scan.classic_20", "scan.classic_20", "scan.cub", "cub", None),
    ("scan.classic_24", "scan.classic_24", "scan.cub", "cub", None),
    ("scan.classic_28", "scan.classic_28", "scan.cub", "cub", None),
    ("scan.resident_24", "scan.resident_24", "scan.cub", "cub", None),
    ("scan.pipelined", "scan.pipelined", "scan.cub", "cub", None),
]
SCAN_COPY_FRACTION = 0.80  # the scan reads and writes once: >= 80% of the copy


def parse(path):
    results = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "RESULT":
                extra = {}
                for kv in (parts[3] if len(parts) > 3 else "").split(","):
                    if "=" in kv:
                        k, v = kv.split("=", 1)
                        extra[k] = v
                try:
                    results[parts[1]] = (float(parts[2]), extra)
                except ValueError:
                    continue
    return results


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def main():
    results = parse(sys.argv[1])
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            print(f.read().rstrip())
        print()
    us = {k: v[0] for k, v in results.items()}
    copy = us.get("copy")
    print("Copy bandwidth (device-to-device, 2^28 f32, bytes read + written):")
    for name in ["copy", "copy.cuda", "copy.cupy"]:
        if name in us:
            print(f"  {name:<12} {us[name]:10.3f} us  {8 * (1 << 28) / us[name] / 1e3:8.1f} GB/s")
    print("  the %copy column uses `copy` (cudajit's stream, cuMemcpyDtoDAsync)")
    print()
    print("High-level operations, 2^28 elements: median us of 20 event-timed calls")
    header = f"{'op':<16} {'cj_us':>10} {'ref':<8} {'ref_us':>10} {'cj/ref':>7} {'GB/s':>7} {'%copy':>6}  bars"
    print(header)
    bars = []
    for row, cj, ref, label, limit in ROWS:
        c, r = us.get(cj), us.get(ref)
        ratio = c / r if c and r else None
        extra = results.get(cj, (None, {}))[1]
        gbps = extra.get("GBps")
        pct = 100.0 * copy / c if (c and copy and row.startswith("scan")) else None
        notes = []
        if limit is not None:
            ok = ratio is not None and ratio <= limit
            notes.append(f"<={limit:.2f}x_{label}:{'ok' if ok else 'FAIL'}")
            bars.append((f"{row}: <= {limit:.2f}x {label}", ratio, ok))
        if row == "scan":
            ok = pct is not None and pct >= 100 * SCAN_COPY_FRACTION
            notes.append(f">=80%copy:{'ok' if ok else 'FAIL'}")
            bars.append((f"{row}: >= 80% of copy bandwidth", pct, ok))
        print(
            f"{row:<16} {fmt(c):>10} {label:<8} {fmt(r):>10} {fmt(ratio):>7} "
            f"{gbps or '-':>7} {fmt(pct, 1):>6}  {','.join(notes) or '-'}"
        )
    print()
    print("Bars")
    for name, value, ok in bars:
        print(f"  {'PASS' if ok else 'FAIL':<6}  {name}: {fmt(value)}")
    return 0 if all(ok for _, _, ok in bars) else 1


if __name__ == "__main__":
    sys.exit(main())
