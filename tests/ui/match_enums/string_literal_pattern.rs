use cudajit::prelude::*;

#[kernel]
fn k(a: &[u8], out: &mut [u32]) {
    let pair = [a[0], a[1]];
    out[0] = match pair {
        b"ok" => 1,
        _ => 0,
    };
}

fn main() {}
