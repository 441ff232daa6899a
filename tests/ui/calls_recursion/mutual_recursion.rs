use cudajit::prelude::*;

#[device]
fn is_even(n: u32) -> bool {
    if n == 0 {
        true
    } else {
        is_odd(n - 1)
    }
}

#[device]
fn is_odd(n: u32) -> bool {
    if n == 0 {
        false
    } else {
        is_even(n - 1)
    }
}

#[kernel]
fn parity(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() && is_even(i as u32) {
        out[i] = 1;
    }
}

fn main() {}
