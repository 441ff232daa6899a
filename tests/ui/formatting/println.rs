use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    println!("{}", c[0]);
}

fn main() {}
