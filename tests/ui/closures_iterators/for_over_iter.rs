use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    let mut s = 0.0f32;
    for x in a.iter() {
        s += 1.0;
    }
    c[0] = s;
}

fn main() {}
