use cudajit::prelude::*;

#[kernel]
fn k(a: &[u32], out: &mut [u32]) {
    out[0] = match a {
        [x, y] => x + y,
        _ => 0,
    };
}

fn main() {}
