use cudajit::prelude::*;

#[kernel]
fn k(a: &[f64], out: &mut [f64]) {
    let v = a.load_vec::<4>(0);
    out[0] = v[0];
}

fn main() {}
