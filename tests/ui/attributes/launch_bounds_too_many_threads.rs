use cudajit::prelude::*;

#[kernel(launch_bounds = 2048)]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
