//! README "The kernel subset": calls to `#[device] fn`s defined anywhere in the crate,
//! with parameters and a return value (a bare name, a module path, `self::`,
//! `super::`, device functions calling device functions). One kernel per construct.
use cudajit::prelude::*;

mod helpers {
    use cudajit::prelude::*;

    #[device]
    pub fn square(x: f32) -> f32 {
        x * x
    }

    #[device]
    pub fn square_plus(x: f32, y: f32) -> f32 {
        self::square(x) + super::offset(y)
    }
}

#[device]
fn offset(y: f32) -> f32 {
    y + 1.0
}

#[device]
fn store(out: &mut [f32], i: usize, v: f32) {
    out[i] = v;
}

#[kernel]
fn device_call_bare_name(out: &mut [f32]) {
    out[0] = offset(out[0]);
}

#[kernel]
fn device_call_module_path(out: &mut [f32]) {
    out[0] = helpers::square(out[0]);
}

#[kernel]
fn device_call_chain_across_modules(out: &mut [f32]) {
    out[0] = helpers::square_plus(out[0], out[1]);
}

#[kernel]
fn device_call_without_return_value(out: &mut [f32]) {
    store(out, 0, 1.0);
}

fn main() {}
