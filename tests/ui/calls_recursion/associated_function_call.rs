use cudajit::prelude::*;

struct S;

impl S {
    fn scale(x: f32) -> f32 {
        x * 2.0
    }
}

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = S::scale(c[0]);
}

fn main() {}
