use cudajit::prelude::*;

fn host_only(x: f32) -> f32 {
    x + 1.0
}

#[device]
fn f(x: f32) -> f32 {
    host_only(x)
}

fn main() {}
