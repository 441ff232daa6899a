use cudajit::prelude::*;

// The generators advance: their states must be a `&mut [u64]`.
#[kernel]
fn k(states: &[u64], out: &mut [f32]) {
    let i = grid(1);
    out[i] = xoroshiro128p_uniform_f32(states, i);
}

fn main() {}
