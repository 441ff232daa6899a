use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let v = a.load_vec::<3>(0);
    out[0] = v[0];
}

fn main() {}
