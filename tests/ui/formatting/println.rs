use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    println!("{:?}", c);
}

fn main() {}
