use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let smem = dynamic_shared();
    let tile = smem.take::<f32>(32);
    out[0] = tile[0];
}

fn main() {}
