use cudajit::prelude::*;

#[vectorize]
fn nothing(x: f32) {
    let _ = x;
}

fn main() {}
