use cudajit::prelude::*;

#[device]
fn f(x: f32) -> f32 {
    let y = nope::<f32, 16>(x);
    y + 1.0
}

fn main() {}
