use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let s: f32 = c.iter().map(|x| x * 2.0).sum();
}

fn main() {}
