use cudajit::prelude::*;

#[device]
fn fill(s: &mut [f32]) {
    s[0] = 1.0;
}

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    fill(&mut a[1..]);
    c[0] = 0.0;
}

fn main() {}
