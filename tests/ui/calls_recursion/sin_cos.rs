use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let (s, co) = c[0].sin_cos();
    c[0] = s;
}

fn main() {}
