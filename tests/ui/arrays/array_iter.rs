use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let a = [1.0f32; 4];
    let s: f32 = a.iter().sum();
    c[0] = s;
}

fn main() {}
