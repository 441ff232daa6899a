use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let mut smem = dynamic_shared();
    let v = smem.take::<f32>(4u32);
    c[0] = 0.0;
}

fn main() {}
