//! README "The kernel subset": `if` / `else if` / `else` (also as expressions),
//! `while`, `loop` with `break value`, `for` over `a..b` and `a..=b`, `.rev()`,
//! `.step_by(n)`, `.rev().step_by(n)`, the grid-stride loop, labelled `break` /
//! `continue`, `return`, blocks. One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn if_else_if_else(a: &mut [i32]) {
    if a[0] > 0 {
        a[1] = 1;
    } else if a[0] < 0 {
        a[1] = -1;
    } else {
        a[1] = 0;
    }
}

#[kernel]
fn if_as_expression(a: &mut [i32]) {
    a[1] = if a[0] > 0 {
        1
    } else if a[0] < 0 {
        -1
    } else {
        0
    };
}

#[kernel]
fn while_loop(a: &mut [u32]) {
    let mut i = 0u32;
    while i < a[0] {
        i += 1;
    }
    a[1] = i;
}

#[kernel]
fn loop_with_break_value(a: &mut [u32]) {
    let mut i = 0u32;
    let found = loop {
        if i * i >= a[0] {
            break i;
        }
        i += 1;
    };
    a[1] = found;
}

#[kernel]
fn for_exclusive_range(a: &mut [f32]) {
    for k in 0..a.len() {
        a[k] = k as f32;
    }
}

#[kernel]
fn for_inclusive_range(a: &mut [f32]) {
    for k in 1..=3usize {
        a[k] = 1.0;
    }
}

#[kernel]
fn for_rev(a: &mut [f32]) {
    for k in (0..a.len()).rev() {
        a[k] = 2.0;
    }
}

#[kernel]
fn for_step_by(a: &mut [f32], n: usize) {
    for k in (0..a.len()).step_by(n) {
        a[k] = 3.0;
    }
}

#[kernel]
fn for_rev_step_by(a: &mut [f32], n: usize) {
    for k in (0..=4usize).rev().step_by(n) {
        a[k] = 4.0;
    }
}

#[kernel]
fn grid_stride_loop(a: &mut [f32], n: usize) {
    for i in (grid(1)..n).step_by(grid_size(1)) {
        a[i] *= 2.0;
    }
}

#[kernel]
fn labelled_break_and_continue(a: &mut [u32]) {
    let mut count = 0u32;
    'rows: for r in 0..4u32 {
        for c in 0..4u32 {
            if c == r {
                continue 'rows;
            }
            if r * c > a[0] {
                break 'rows;
            }
            count += 1;
        }
    }
    a[1] = count;
}

#[kernel]
fn early_return(a: &mut [f32]) {
    let i = grid(1);
    if i >= a.len() {
        return;
    }
    a[i] = 0.0;
}

#[kernel]
fn block_expression(a: &mut [f32]) {
    let x = {
        let y = a[0] * 2.0;
        y + 1.0
    };
    a[1] = x;
}

fn main() {}
