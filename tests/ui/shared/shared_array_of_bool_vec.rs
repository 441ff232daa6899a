use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let tile = shared_array::<Vec<f32>>();
    c[0] = 0.0;
}

fn main() {}
