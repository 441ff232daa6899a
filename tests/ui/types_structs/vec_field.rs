use cudajit::prelude::*;

#[derive(Clone, DeviceCopy)]
#[repr(C)]
struct Samples {
    count: u32,
    values: Vec<f32>,
}

fn main() {}
