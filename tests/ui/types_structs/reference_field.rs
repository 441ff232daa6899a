use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct View {
    len: u32,
    first: &'static f32,
}

fn main() {}
