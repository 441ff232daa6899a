use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = nope::<f32>(c[0]) * 2.0;
}

fn main() {}
