use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let s = format!("{}", c[0]);
    c[0] = 0.0;
}

fn main() {}
