use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let smem = dynamic_shared();
    let v = smem.take::<f32>(4);
    c[0] = 0.0;
}

fn main() {}
