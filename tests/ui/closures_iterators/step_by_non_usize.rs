use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    for i in (0..8).step_by(2u32) {
        c[i] = 0.0;
    }
}

fn main() {}
