use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    if c[0] < 1u32 {
        c[0] = 0.0;
    }
}

fn main() {}
