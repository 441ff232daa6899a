use cudajit::prelude::*;

#[vectorize]
fn twice<T: Num>(x: T) -> T {
    x + x
}

fn main() {}
