use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let s = c[0].to_string();
    c[0] = 0.0;
}

fn main() {}
