use cudajit::prelude::*;

const THREADS: u32 = 256;

#[kernel(launch_bounds = THREADS)]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
