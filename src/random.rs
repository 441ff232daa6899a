//! Random numbers on the device, in the shape of Numba's `numba.cuda.random`: one
//! xoroshiro128+ generator per thread, its state two `u64` words of an ordinary slice.
//!
//! ```no_run
//! use cudajit::prelude::*;
//!
//! #[kernel]
//! fn noise(states: &mut [u64], out: &mut [f32]) {
//!     let i = grid(1);
//!     if i < out.len() {
//!         out[i] = xoroshiro128p_normal_f32(states, i);
//!     }
//! }
//!
//! fn main() -> cudajit::Result<()> {
//!     let n = 1 << 20;
//!     let mut states = cudajit::random::create_xoroshiro128p_states(n, 42)?;
//!     let mut out = vec![0.0f32; n];
//!     launch!(noise[n.div_ceil(256), 256](&mut states, &mut out))?;
//!     Ok(())
//! }
//! ```
//!
//! The device functions are ordinary `#[device]` functions written in the kernel
//! subset, so a kernel gathers them like its own, and on the host they are the same
//! code: the reference that the GPU tests compare bit for bit.
//!
//! Seeding is Numba's: state 0 is SplitMix64 of the seed (both words), and each next
//! state is the previous one advanced by xoroshiro128+'s jump polynomial, 2^64 steps,
//! so the streams of different threads never overlap. The draws differ from Numba's
//! in three places, each to keep a documented guarantee that Numba's code breaks:
//! - `xoroshiro128p_uniform_f32` takes the top 24 bits (`(x >> 40) * 2^-24`); Numba
//!   rounds a 53-bit `f64` to `f32`, which gives 1.0 once in 2^25 draws;
//! - the normal draws use `1 - u` in (0, 1] for the logarithm; Numba's `ln(u)` is
//!   `-inf` once in 2^24 `f32` draws, which makes the normal draw infinite;
//! - `xoroshiro128p_normal_f64` draws two `f64` uniforms; Numba's draws `f32` ones.

use crate::prelude::*;
use crate::{DeviceArray, Result};

/// Returns the next 64 random bits of generator `index` (words `2 * index` and
/// `2 * index + 1` of `states`) and advances it (Numba's `xoroshiro128p_next`).
#[device]
#[allow(clippy::manual_rotate)] // the kernel subset has no rotate_left yet
pub fn xoroshiro128p_next(states: &mut [u64], index: usize) -> u64 {
    let s0 = states[2 * index];
    let mut s1 = states[2 * index + 1];
    let result = s0.wrapping_add(s1);
    s1 ^= s0;
    // rotl(s0, 55) ^ s1 ^ (s1 << 14), rotl(s1, 36)
    states[2 * index] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
    states[2 * index + 1] = (s1 << 36) | (s1 >> 28);
    result
}

/// Advances generator `index` by 2^64 steps (Numba's `xoroshiro128p_jump`).
#[device]
pub fn xoroshiro128p_jump(states: &mut [u64], index: usize) {
    let mut s0 = 0u64;
    let mut s1 = 0u64;
    for word in 0..2 {
        let jump = if word == 0 {
            0xbeac_0467_eba5_facbu64
        } else {
            0xd86b_048b_86aa_9922u64
        };
        for bit in 0..64u32 {
            if (jump >> bit) & 1 == 1 {
                s0 ^= states[2 * index];
                s1 ^= states[2 * index + 1];
            }
            xoroshiro128p_next(states, index);
        }
    }
    states[2 * index] = s0;
    states[2 * index + 1] = s1;
}

/// A uniformly distributed `f32` in [0, 1), advancing generator `index`.
#[device]
pub fn xoroshiro128p_uniform_f32(states: &mut [u64], index: usize) -> f32 {
    let bits = xoroshiro128p_next(states, index);
    // The top 24 bits, times 2^-24: every value exact, never 1.0.
    (bits >> 40) as f32 * (1.0f32 / 16777216.0f32)
}

/// A uniformly distributed `f64` in [0, 1), advancing generator `index`.
#[device]
pub fn xoroshiro128p_uniform_f64(states: &mut [u64], index: usize) -> f64 {
    let bits = xoroshiro128p_next(states, index);
    // The top 53 bits, times 2^-53.
    (bits >> 11) as f64 * (1.0f64 / 9007199254740992.0f64)
}

/// A standard normal `f32` (mean 0, deviation 1) by the Box–Muller transform, advancing
/// generator `index` by two steps.
#[device]
pub fn xoroshiro128p_normal_f32(states: &mut [u64], index: usize) -> f32 {
    // 1 - u is exact and in (0, 1], so the logarithm is finite.
    let u1 = 1.0f32 - xoroshiro128p_uniform_f32(states, index);
    let u2 = xoroshiro128p_uniform_f32(states, index);
    (-2.0f32 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
}

/// A standard normal `f64` (mean 0, deviation 1) by the Box–Muller transform, advancing
/// generator `index` by two steps.
#[device]
pub fn xoroshiro128p_normal_f64(states: &mut [u64], index: usize) -> f64 {
    let u1 = 1.0f64 - xoroshiro128p_uniform_f64(states, index);
    let u2 = xoroshiro128p_uniform_f64(states, index);
    (-2.0f64 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// SplitMix64 of `seed`: the first generator's two words, as Numba seeds it.
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Seeds the generators in `states` (two words each; a trailing odd word is left as
/// it is) on the host, as Numba's `init_xoroshiro128p_states` does: generator 0 from
/// SplitMix64 of `seed`, every next one 2^64 steps further along the same sequence.
pub fn init_xoroshiro128p_states(states: &mut [u64], seed: u64) {
    let n = states.len() / 2;
    if n == 0 {
        return;
    }
    let first = splitmix64(seed);
    states[0] = first;
    states[1] = first;
    for i in 1..n {
        let (previous, rest) = states.split_at_mut(2 * i);
        rest[..2].copy_from_slice(&previous[2 * i - 2..]);
        xoroshiro128p_jump(states, i);
    }
}

/// `n` generators seeded from `seed` (see [`init_xoroshiro128p_states`]), in a new
/// device array of `2 * n` words on the default device (Numba's
/// `create_xoroshiro128p_states`). Pass it to a kernel's `&mut [u64]` parameter; each
/// thread draws from its own generator `index`.
pub fn create_xoroshiro128p_states(n: usize, seed: u64) -> Result<DeviceArray<u64>> {
    create_xoroshiro128p_states_on(&crate::Device::default()?, n, seed)
}

/// As [`create_xoroshiro128p_states`], on `device`.
pub fn create_xoroshiro128p_states_on(
    device: &crate::Device,
    n: usize,
    seed: u64,
) -> Result<DeviceArray<u64>> {
    let mut states = vec![0u64; n.saturating_mul(2)];
    init_xoroshiro128p_states(&mut states, seed);
    device.to_device(&states)
}

#[cfg(test)]
mod tests;
