use cudajit::prelude::*;

#[kernel]
fn k(states: &mut [u32], c: &mut [f32]) {
    let x = xoroshiro128p_uniform_f32(states, 0);
    c[0] = x;
}

fn main() {}
