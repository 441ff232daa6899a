use cudajit::prelude::*;

#[path = "modules/statics.rs"]
mod statics;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = statics::SCALE * 2.0;
}

fn main() {}
