use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let mut smem = dynamic_shared(64);
    c[0] = 0.0;
}

fn main() {}
