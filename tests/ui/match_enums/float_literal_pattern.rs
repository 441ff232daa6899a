use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], out: &mut [u32]) {
    out[0] = match a[0] {
        0.5 => 1,
        _ => 0,
    };
}

fn main() {}
