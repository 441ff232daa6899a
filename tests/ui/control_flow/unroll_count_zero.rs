use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    #[unroll(0)]
    for i in 0..4 {
        c[i] = 0.0;
    }
}

fn main() {}
