use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Params {
    dt: f32,
    damping: f32,
}

#[kernel]
fn k(params: Params, v: &mut [f32]) {
    let i = grid(1);
    if i < v.len() {
        v[i] *= params.damping;
    }
}

fn main() {}
