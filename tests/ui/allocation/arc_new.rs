use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let r = std::sync::Arc::new(1.0f32);
    c[0] = 0.0;
}

fn main() {}
