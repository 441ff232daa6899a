use cudajit::prelude::*;

#[device]
fn twice<T: Copy>(x: T) -> T {
    x
}

fn main() {}
