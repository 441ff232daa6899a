use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let tile = shared_array::<[(f32, f32); 4]>();
    c[0] = 0.0;
}

fn main() {}
