//! Generic kernels that must compile: each trait's operations, const parameters as
//! array lengths, shared array sizes and loop bounds, and every way to launch one.
use cudajit::prelude::*;
use cudajit::{Float, Int, Num};

#[kernel]
fn scale<T: Num>(a: T, x: &mut [T]) {
    let i = grid(1);
    if i < x.len() {
        let mut v = x[i] * a + T::one() - T::zero();
        v += T::from_i32(2);
        v -= T::from_usize(i);
        x[i] = if v > T::MAX / T::from_f64(2.0) {
            T::MIN
        } else {
            v
        };
    }
}

#[kernel]
fn float_math<T: Float>(x: &mut [T]) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        x[i] = -v
            .sqrt()
            .mul_add(v.exp(), v.ln().abs())
            .max(T::EPSILON)
            .min(T::PI)
            + rsqrt(v)
            + T::max(v.powi(2), v.powf(T::from_f32(0.5)));
    }
}

#[kernel]
fn bits<T: Int>(x: &mut [T], shift: u32) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        x[i] = ((v << shift) ^ !v | (v >> 1u32) & v)
            .wrapping_add(T::from_u32(v.count_ones()))
            .min(T::MAX)
            .clamp(T::zero(), T::MAX);
    }
}

#[kernel]
fn window<T: Num, const N: usize>(x: &[T], out: &mut [T]) {
    let tile = shared_array::<[T; N]>();
    let padded = shared_array::<[[T; N + 1]; N]>();
    let mut local = [T::zero(); N];
    let t = thread_idx().x as usize;
    let i = grid(1);
    if t < N && i < x.len() {
        tile[t] = x[i];
        padded[t][t + 1] = x[i];
        local[t] = x[i];
    }
    sync_threads();
    let mut sum = T::zero();
    for k in 0..N {
        sum += tile[k] + padded[k][k + 1] + local[k];
    }
    if i < out.len() {
        out[i] = sum;
    }
}

#[kernel]
fn fill<T>(x: &mut [T], value: T)
where
    T: Num,
{
    let i = grid(1);
    if i < x.len() {
        x[i] = value;
    }
}

#[allow(dead_code)]
fn launches() -> cudajit::Result<()> {
    let mut x = vec![1.0f32; 64];
    let mut n = vec![1u64; 64];
    launch!(scale[1, 64](2.0f32, &mut x))?;
    launch!(scale::<u64>[1, 64](3, &mut n))?;
    launch!(float_math[1, 64](&mut x))?;
    launch!(bits[1, 64](&mut n, 3))?;
    launch!(fill[1, 64](&mut n, 7))?;
    let y = x.clone();
    launch!(window::<f32, 16>[4, 16](&y, &mut x))?;
    scale::launch::<f64>(LaunchConfig::new(1, 1), 1.0, &mut [0.0f64][..])?;
    Ok(())
}

fn main() {}
