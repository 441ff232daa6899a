use cudajit::prelude::*;

// One mistake (a `Vec` field), one error, at the field: not the missing `Copy` that
// follows from it, nor the kernel that takes the struct.
#[derive(Clone, DeviceCopy)]
#[repr(C)]
struct Samples {
    count: u32,
    values: Vec<f32>,
}

#[kernel]
fn total(s: &[Samples], out: &mut [u32]) {
    out[0] = s[0].count;
}

fn main() {}
