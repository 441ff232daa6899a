#!/usr/bin/env python3
"""Instruction counts of a kernel's hot loop in `cuobjdump -sass` output, to compare
checked and unchecked kernels (or a change before and after) without a GPU.

    python3 bench/sass_loops.py FILE.sass ...

For each file: the kernel's instructions, and the loop whose backward branch is the
first one after the last tensor-core instruction (HGMMA, QGMMA, HMMA, IMMA, DMMA; for the FA3
kernels the key loop, for the GEMMs the k-loop): its size, its `R2UR` moves (values
moved from vector to uniform registers, one per descriptor that left the uniform
datapath) and its predicated branches (each check left in the loop is one).

Make the SASS with the local toolkit: `hopper_attention --inspect DIR`, then
`ptxas -arch=sm_90a -O3 -o k.cubin DIR/k.ptx && cuobjdump -sass k.cubin > k.sass`.
"""
import re
import sys

TENSOR = ("HGMMA", "QGMMA", "HMMA", "IMMA", "DMMA")


def instructions(path):
    found = []
    for line in open(path).read().splitlines():
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            found.append((int(m.group(1), 16), m.group(2)))
    return found


def hot_loop(ins):
    tensor = [i for i, (_, t) in enumerate(ins) if any(op in t for op in TENSOR)]
    if not tensor:
        return None
    for address, text in ins[tensor[-1]:]:
        m = re.search(r"BRA (0x[0-9a-f]+)", text)
        if m and int(m.group(1), 16) < address:
            return int(m.group(1), 16), address
    return None


def main():
    print(f"{'file':48} {'kernel':>7} {'loop':>6} {'R2UR':>5} {'branches':>8}")
    for path in sys.argv[1:]:
        ins = instructions(path)
        loop = hot_loop(ins)
        name = path.rsplit("/", 1)[-1]
        if loop is None:
            print(f"{name:48} {len(ins):7} {'-':>6}")
            continue
        body = [t for a, t in ins if loop[0] <= a <= loop[1]]
        r2ur = sum(t.startswith("R2UR") for t in body)
        branches = sum(t.startswith("@") and " BRA " in t for t in body)
        print(f"{name:48} {len(ins):7} {len(body):6} {r2ur:5} {branches:8}")


if __name__ == "__main__":
    main()
