use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let pairs = shared_array::<[(f32, u32); 4]>();
    out[0] = pairs[0].0;
}

fn main() {}
