//! Numba's `cuda.reduce` passes its 2-D shared `sm_partials` to a device function: a
//! `#[device]` fn takes `&mut [[T; N]; M]` (shared or local), as written in Rust.
use cudajit::prelude::*;

#[device]
fn partial_sum(sm: &mut [[f32; 33]; 4], t: usize) -> f32 {
    sm[1][t] = sm[0][t] * 2.0;
    sm[0][t] + sm[1][t] + sm[3][t]
}

#[device]
fn corner(m: &[[u32; 2]; 2]) -> u32 {
    m[1][1]
}

#[kernel]
fn k(out: &mut [f32], ids: &mut [u32]) {
    let sm = shared_array::<[[f32; 33]; 4]>();
    let t = thread_idx().x as usize;
    if t < 33 {
        sm[0][t] = t as f32;
        sm[3][t] = 1.0;
        out[t] = partial_sum(sm, t);
    }
    let local = [[1u32, 2], [3, t as u32]];
    ids[t] = corner(&local);
}

fn main() {}
