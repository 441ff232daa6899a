use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let mut smem = dynamic_shared();
    let v = smem.rest::<f32>();
    c[0] = 0.0;
}

fn main() {}
