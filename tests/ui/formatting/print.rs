use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    print!("x");
}

fn main() {}
