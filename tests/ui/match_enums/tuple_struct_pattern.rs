use cudajit::prelude::*;

#[kernel]
fn k(a: &[u32], out: &mut [u32]) {
    out[0] = match a.first() {
        Some(v) => *v,
        None => 0,
    };
}

fn main() {}
