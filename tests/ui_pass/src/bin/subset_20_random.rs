//! README "The kernel subset": random numbers as Numba's `numba.cuda.random`, one
//! kernel per draw function, plus the host side creating the states.
use cudajit::prelude::*;

#[kernel]
fn uniform_f32(states: &mut [u64], out: &mut [f32]) {
    let i = grid(1);
    out[i] = xoroshiro128p_uniform_f32(states, i);
}

#[kernel]
fn uniform_f64(states: &mut [u64], out: &mut [f64]) {
    let i = grid(1);
    out[i] = xoroshiro128p_uniform_f64(states, i);
}

#[kernel]
fn normal_f32(states: &mut [u64], out: &mut [f32]) {
    let i = grid(1);
    out[i] = xoroshiro128p_normal_f32(states, i);
}

#[kernel]
fn normal_f64(states: &mut [u64], out: &mut [f64]) {
    let i = grid(1);
    out[i] = xoroshiro128p_normal_f64(states, i);
}

#[allow(dead_code)]
fn create_states_on_the_host() -> cudajit::Result<()> {
    let mut states = cudajit::random::create_xoroshiro128p_states(64, 42)?;
    let mut out = vec![0.0f32; 64];
    launch!(uniform_f32[1, 64](&mut states, &mut out))
}

fn main() {}
