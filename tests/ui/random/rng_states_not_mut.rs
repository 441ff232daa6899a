use cudajit::prelude::*;

#[kernel]
fn k(states: &[u64], c: &mut [f32]) {
    let x = xoroshiro128p_uniform_f32(states, 0);
    c[0] = x;
}

fn main() {}
