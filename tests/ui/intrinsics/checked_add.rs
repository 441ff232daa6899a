use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = 1u32.checked_add(2);
    c[0] = 0.0;
}

fn main() {}
