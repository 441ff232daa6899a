use cudajit::prelude::*;

#[device(launch_bounds = 256)]
fn f(x: f32) -> f32 {
    x
}

fn main() {}
