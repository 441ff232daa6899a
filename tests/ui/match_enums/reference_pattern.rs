use cudajit::prelude::*;

#[kernel]
fn k(a: &[u32], out: &mut [u32]) {
    out[0] = match a[0] {
        &n => n,
    };
}

fn main() {}
