use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let n = c.len();
    let tile = shared_array::<[f32; n]>();
    c[0] = 0.0;
}

fn main() {}
