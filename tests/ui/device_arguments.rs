use cudajit::prelude::*;

#[device(inline)]
fn helper(x: f32) -> f32 {
    x
}

fn main() {}
