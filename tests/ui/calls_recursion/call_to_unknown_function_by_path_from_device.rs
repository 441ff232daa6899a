use cudajit::prelude::*;

mod helpers {}

#[device]
fn f(x: f32) -> f32 {
    helpers::nope(x) + 1.0
}

fn main() {}
