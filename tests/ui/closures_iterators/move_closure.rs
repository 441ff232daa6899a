use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let y = 1.0f32;
    let f = move || y;
    c[0] = 0.0;
}

fn main() {}
