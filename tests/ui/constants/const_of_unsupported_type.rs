use cudajit::prelude::*;

const NAME: &str = "k";

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = NAME.len() as f32;
}

fn main() {}
