//! `const` items in a kernel or device body (Numba's module-level `N = 100` moved into
//! the function): they size shared and local arrays and read as their values, and a
//! nested block's constants shadow the outer ones.
use cudajit::prelude::*;

const SCALE: f32 = 2.0;

#[kernel]
fn smooth(a: &[f32], out: &mut [f32]) {
    const N: usize = 128;
    const WEIGHTS: [f32; 3] = [0.25, 0.5, 0.25];
    const HALF: usize = N / 2;
    let tile = shared_array::<[f32; N]>();
    let mut local = [0.0f32; HALF];
    let t = thread_idx().x as usize;
    let i = grid(1);
    if i < a.len() && t < N {
        tile[t] = a[i];
    }
    sync_threads();
    if i < out.len() && t > 0 && t + 1 < N {
        local[t % HALF] =
            WEIGHTS[0] * tile[t - 1] + WEIGHTS[1] * tile[t] + WEIGHTS[2] * tile[t + 1];
        out[i] = local[t % HALF] * SCALE * scaled(1.0);
    }
}

#[device]
fn scaled(x: f32) -> f32 {
    const K: f32 = 0.5;
    let y = x * K;
    {
        const K: f32 = 2.0;
        y * K
    }
}

fn main() {}
