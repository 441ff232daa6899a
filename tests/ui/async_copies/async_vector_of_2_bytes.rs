use cudajit::prelude::*;

#[kernel]
fn k(a: &[u8], out: &mut [u8]) {
    let v = a.load_vec::<2>(0);
    out[0] = v[0];
}

fn main() {}
