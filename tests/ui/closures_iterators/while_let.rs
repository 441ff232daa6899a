use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let mut n = 3u32;
    while let Some(m) = n.checked_sub(1) {
        n = m;
    }
    c[0] = 0.0;
}

fn main() {}
