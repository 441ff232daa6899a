use cudajit::prelude::*;

#[kernel]
fn k(config: u32, c: &mut [f32]) {
    c[0] = config as f32;
}

fn main() {}
