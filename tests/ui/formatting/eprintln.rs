use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    eprintln!("{}", c[0], c[1]);
}

fn main() {}
