use cudajit::prelude::*;

#[kernel]
fn k(a: &[u32], out: &mut [u32]) {
    let t = &a[..1];
    out[0] = match t.len() {
        0 => 0,
        _ => match &a[0] {
            &n => n,
        },
    };
}

fn main() {}
