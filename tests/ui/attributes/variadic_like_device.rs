use cudajit::prelude::*;

#[device]
async fn f(x: f32) -> f32 {
    x
}

fn main() {}
