use cudajit::prelude::*;

#[device(fastmath = true)]
fn f(x: f32) -> f32 {
    x
}

fn main() {}
