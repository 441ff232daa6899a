#!/usr/bin/env python3
"""Turns the `RESULT <kernel>.<impl> <median_us> <key=value,...>` lines of one
bench/run_tc.sh run into the tensor-core comparison table (issue 23), bars checked.

Usage: report_tc.py RESULTS_FILE [HEADER_FILE]   (standard library only: runs anywhere)

impl is `nvcc` (bench/cuda/tc.cu's own process), `nvcc_here` (the same nvcc kernel
timed inside bench/tc.rs on cudajit's buffers, interleaved with cudajit's launches: the
ratios use it when present, since where the buffers land moves the 8192³ GEMMs by up
to 12% from one process to the next), `cudajit` / `cudajit_nocheck` (bench/tc.rs),
`cublas_here` (cuBLAS timed inside bench/tc.rs on the same buffers and stream, for the
same reason: `%lib` and the library bars use it when present) or the library in torch's
own process (bench/cuda/tc_reference.py: `cublas`, `flash`, `cudnn`; kept as the
`lib_torch_us` column). The table's columns are
whitespace-separated with `-` for a missing value and its header line starts with
`tc_kernel`: `cargo xtask chart-tc` parses it to draw the ratios.
Exit status 0 when every bar is met, 1 otherwise (the table is printed either way).
"""

import math
import sys

# (kernel, the library it is measured against)
KERNELS = [
    ("gemm_bf16_4096", "cublas"),
    ("gemm_bf16_8192", "cublas"),
    ("gemm_tf32_8192", "cublas"),
    ("gemm_int8_8192", "cublas"),
    ("dgemm_f64_4096", "cublas"),
    ("attention_d64", "flash"),
    ("attention_d128", "flash"),
]
NVCC_LIMIT = 1.05  # each kernel within 1.05x of nvcc's time
GEOMEAN_LIMIT = 1.00
# Fraction of the library's rate the cudajit kernel must reach.
LIBRARY_FRACTION = {"gemm_bf16_8192": 0.50, "attention_d64": 0.90, "attention_d128": 0.90}


def parse(path):
    results = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "RESULT":
                extra = dict(kv.split("=", 1) for kv in (parts[3] if len(parts) > 3 else "").split(",") if "=" in kv)
                try:
                    results[parts[1]] = (float(parts[2]), extra)
                except ValueError:
                    continue
    return results


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def ratio(a, b):
    return a / b if a is not None and b else None


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    results = parse(argv[1])
    us = lambda name: results[name][0] if name in results else None  # noqa: E731

    def tflops(name):
        r = results.get(name)
        return float(r[1]["flops"]) / r[0] * 1e-6 if r and "flops" in r[1] else None

    lines = []
    if len(argv) > 2:
        with open(argv[2]) as f:
            lines += [l.rstrip("\n") for l in f]
        lines.append("")
    lines.append("Tensor-core kernels: median us of event-timed launches; TFLOP/s (int8: TOP/s) by the")
    lines.append("nominal count (GEMM 2n^3, attention 4·BH·S^2·D); ratios are times (lower is faster).")
    lines.append("cj = cudajit #[kernel] (bounds-checked), nochk = boundscheck = false, lib = the library")
    lines.append("in the lib column; %lib = cj rate / lib rate. nvcc_us is the nvcc twin timed in cudajit's")
    lines.append("process on the same buffers, launch by launch between cudajit's (when measured);")
    lines.append("nvcc_proc_us is tc.cu's own process, its own buffers. lib_us is where lib_at says:")
    lines.append("  cj    = cuBLAS (cublasGemmEx) in cudajit's process on the same buffers and stream,")
    lines.append("          interleaved with cudajit's and the twin's launches (used for %lib and the bars);")
    lines.append("  torch = torch's own process and buffers (cuBLAS through torch.matmul/_int_mm when cuBLAS")
    lines.append("          was not measured in cudajit's process; attention: SDPA FLASH_ATTENTION, always there,")
    lines.append("          as it is no GEMM). lib_torch_us / %lib_torch: the library in torch's process, always.")
    header = [
        ("tc_kernel", 16), ("nvcc_us", 10), ("cj_us", 10), ("nochk_us", 10), ("lib", 7), ("lib_us", 10),
        ("nvcc_TF", 8), ("cj_TF", 8), ("lib_TF", 8), ("cj/nvcc", 8), ("nochk/nvcc", 10), ("lib/nvcc", 8),
        ("%lib", 6), ("%lib_nvcc", 9), ("nvcc_proc_us", 12), ("lib_at", 6), ("lib_torch_us", 12),
        ("%lib_torch", 10), ("bars", 0),
    ]
    lines.append(" ".join(f"{h:<{w}}" if w else h for h, w in header))
    verdicts, cj_ratios, nc_ratios = [], [], []
    for kernel, lib in KERNELS:
        t_proc, t_here, t_cj, t_nc, t_lib_here, t_lib_torch = (
            us(f"{kernel}.{i}")
            for i in ("nvcc", "nvcc_here", "cudajit", "cudajit_nocheck", f"{lib}_here", lib))
        t_nvcc = t_here if t_here is not None else t_proc
        nvcc_name = f"{kernel}.nvcc_here" if t_here is not None else f"{kernel}.nvcc"
        t_lib = t_lib_here if t_lib_here is not None else t_lib_torch
        lib_name = f"{kernel}.{lib}_here" if t_lib_here is not None else f"{kernel}.{lib}"
        lib_at = "cj" if t_lib_here is not None else ("torch" if t_lib_torch is not None else None)
        pct_torch = ratio(t_lib_torch, t_cj)
        r_cj, r_nc, r_lib = ratio(t_cj, t_nvcc), ratio(t_nc, t_nvcc), ratio(t_lib, t_nvcc)
        pct, pct_nvcc = ratio(t_lib, t_cj), ratio(t_lib, t_nvcc)
        bars = []

        def bar(label, ok, detail):
            verdicts.append((f"{kernel}: {label}", ok, detail))
            bars.append(f"{label}:{'-' if ok is None else ('ok' if ok else 'FAIL')}")

        for name, r, acc in (("cj", r_cj, cj_ratios), ("nochk", r_nc, nc_ratios)):
            bar(f"{name}<={NVCC_LIMIT}x", None if r is None else r <= NVCC_LIMIT, fmt(r, ".3f"))
            if r is not None:
                acc.append(r)
        if kernel in LIBRARY_FRACTION:
            need = LIBRARY_FRACTION[kernel]
            bar(f">={need:.2f}x{lib}", None if pct is None else pct >= need,
                f"cudajit {fmt(pct, '.3f')}, nvcc {fmt(pct_nvcc, '.3f')} ({lib} in "
                f"{'cudajit' if lib_at == 'cj' else 'torch'}'s process; "
                f"cudajit against {lib} in torch's {fmt(pct_torch, '.3f')})")
        row = [
            (kernel, 16), (fmt(t_nvcc, ".1f"), 10), (fmt(t_cj, ".1f"), 10), (fmt(t_nc, ".1f"), 10),
            (lib, 7), (fmt(t_lib, ".1f"), 10), (fmt(tflops(nvcc_name), ".1f"), 8),
            (fmt(tflops(f"{kernel}.cudajit"), ".1f"), 8), (fmt(tflops(lib_name), ".1f"), 8),
            (fmt(r_cj, ".3f"), 8), (fmt(r_nc, ".3f"), 10), (fmt(r_lib, ".3f"), 8),
            (fmt(None if pct is None else 100 * pct, ".1f"), 6),
            (fmt(None if pct_nvcc is None else 100 * pct_nvcc, ".1f"), 9), (fmt(t_proc, ".1f"), 12),
            (lib_at or "-", 6), (fmt(t_lib_torch, ".1f"), 12),
            (fmt(None if pct_torch is None else 100 * pct_torch, ".1f"), 10),
            (",".join(bars), 0),
        ]
        lines.append(" ".join(f"{v:<{w}}" if w else v for v, w in row))
    lines.append("")
    lines.append("Attention against the cuDNN backend (SDPBackend.CUDNN_ATTENTION), reported, no bar:")
    for kernel in ("attention_d64", "attention_d128"):
        t_cudnn = us(f"{kernel}.cudnn")
        lines.append(f"  {kernel:<16} cudnn {fmt(t_cudnn, '.1f')} us {fmt(tflops(f'{kernel}.cudnn'), '.1f')} TFLOP/s;"
                     f" nvcc/cudnn rate {fmt(ratio(t_cudnn, us(f'{kernel}.nvcc')), '.3f')} (tc.cu's process),"
                     f" cudajit/cudnn rate {fmt(ratio(t_cudnn, us(f'{kernel}.cudajit')), '.3f')}")
    lines.append("")
    for name, rs in (("cj", cj_ratios), ("nochk", nc_ratios)):
        complete = len(rs) == len(KERNELS)
        g = math.exp(sum(math.log(r) for r in rs) / len(rs)) if rs else None
        verdicts.append((f"geomean {name}/nvcc <= {GEOMEAN_LIMIT:.2f} (over {len(rs)} of {len(KERNELS)} kernels)",
                         None if g is None or not complete else g <= GEOMEAN_LIMIT, fmt(g, ".3f")))
    extras = [f"  {name}: {', '.join(f'{k}={v}' for k, v in extra.items() if k not in ('flops', 'reps'))}"
              for name, (_, extra) in sorted(results.items()) if any(k not in ("flops", "reps") for k in extra)]
    if extras:
        lines.append("Other readings (error = ||out - ref|| / ||ref|| on the checked sample, f64 reference)")
        lines += extras
        lines.append("")
    lines.append("Bars")
    for what, ok, detail in verdicts:
        lines.append(f"  {'MISSING' if ok is None else ('ok' if ok else 'FAIL'):<7} {what}: {detail}")
    print("\n".join(lines))
    return 0 if all(ok for _, ok, _ in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
