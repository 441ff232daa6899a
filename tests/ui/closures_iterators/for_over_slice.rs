use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    let mut s = 0.0f32;
    for x in a {
        s += *x;
    }
    c[0] = s;
}

fn main() {}
