use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let tile = shared_array::<[f32; 4]>();
    *tile = [0.0; 4];
    c[0] = 0.0;
}

fn main() {}
