//! Device functions of another file, for `pass/device_calls_from_fn_body_kernel.rs`.
use cudajit::prelude::*;

#[device]
pub fn cube(x: f32) -> f32 {
    x * x * x
}

#[device]
pub fn scaled<T: Float>(x: T, by: T) -> T {
    x * by
}

#[device]
pub fn halve<T: Float>(x: T) -> T {
    x / T::from_f32(2.0)
}
