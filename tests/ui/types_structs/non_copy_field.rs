use cudajit::prelude::*;

// A field that is not `Copy` (and not a device type): cudajit's error comes first, at
// the field; rustc's E0204 for the `Copy` derive follows.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Samples {
    count: u32,
    values: Vec<f32>,
}

fn main() {}
