use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let a = 1u32;
    let b = 2i32;
    let s = a + b;
    c[0] = 0.0;
}

fn main() {}
