use cudajit::prelude::*;

#[device]
fn fill(s: &mut [f32]) {
    s[0] = 1.0;
}

#[kernel]
fn k(c: &mut [f32]) {
    let a = [0.0f32; 4];
    fill(&mut a[..2]);
    c[0] = a[0];
}

fn main() {}
