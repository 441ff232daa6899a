use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let s = String::new();
    c[0] = 0.0;
}

fn main() {}
