//! `if`/`else` as values, `while`, `loop` with `break value`, `for` over ranges with
//! `.rev()` / `.step_by(n)`, labels, `return` and blocks compile.
use cudajit::prelude::*;

#[kernel]
fn control(out: &mut [u32], n: usize) {
    let i = grid(1);
    if i >= out.len() {
        return;
    }
    let v = if n > 3 { 1u32 } else if n > 1 { 2 } else { 3 };
    let mut w = 0u32;
    while w < 4 {
        w += 1;
    }
    let found = loop {
        break w * 2;
    };
    let mut s = 0u32;
    for k in 0..4u32 {
        s += k;
    }
    for k in (0..=4u32).rev() {
        s += k;
    }
    for k in (i..n).step_by(grid_size(1)) {
        s += k as u32;
    }
    for k in (0..n).rev().step_by(2) {
        s += k as u32;
    }
    'outer: for a in 0..4 {
        for b in 0..4 {
            if a * b > 4 {
                break 'outer;
            }
            if b == 1 {
                continue 'outer;
            }
        }
    }
    let block = {
        let t = v + found;
        t * 2
    };
    out[i] = s + block;
}

fn main() {}
