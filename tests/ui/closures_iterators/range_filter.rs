use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    for i in (0..4).filter(|i| i % 2 == 0) {
        c[i] = 0.0;
    }
}

fn main() {}
