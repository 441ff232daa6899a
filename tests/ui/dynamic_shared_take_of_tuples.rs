use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let mut smem = dynamic_shared();
    let pairs = smem.take::<(f32, f32)>(32);
    out[0] = pairs[0].0;
}

fn main() {}
