use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    print!("value } {}", c[0]);
}

fn main() {}
