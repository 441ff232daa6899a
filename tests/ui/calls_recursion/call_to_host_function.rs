use cudajit::prelude::*;

fn host_only(x: f32) -> f32 {
    x + 1.0
}

#[kernel]
fn k(c: &mut [f32]) {
    let i = grid(1);
    c[i] = host_only(c[i]);
}

fn main() {}
