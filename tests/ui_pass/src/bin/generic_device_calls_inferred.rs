//! Generic `#[device]` functions called by their bare names: their type parameters are
//! inferred from the arguments, as for any Rust fn (the calls go through cudajit's
//! check that each callee is a `#[device]` function).
use cudajit::prelude::*;

#[device]
fn twice<T: Num>(x: T) -> T {
    x + x
}

#[device]
fn clamp_to<T: Num>(x: T, hi: T) -> T {
    if x > hi {
        hi
    } else {
        x
    }
}

#[kernel]
fn k(c: &mut [f32], n: &mut [u32]) {
    let i = grid(1);
    if i < c.len() {
        let doubled = twice(c[i]);
        c[i] = clamp_to(doubled, 4.0) * 0.5;
        n[i] = clamp_to(twice(n[i]), 7);
    }
}

fn main() {
    let _ = k::source();
}
