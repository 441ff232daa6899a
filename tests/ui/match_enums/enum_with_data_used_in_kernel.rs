use cudajit::prelude::*;

// One mistake (a variant with data), one error: the kernel taking the enum is not
// reported again.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(u8)]
enum Op {
    Add,
    Scale(f32),
}

#[kernel]
fn apply(op: Op, ops: &[Op], v: &mut [f32]) {
    let i = grid(1);
    if i < v.len() {
        match op {
            Op::Add => v[i] += 1.0,
            _ => {}
        }
    }
}

fn main() {
    let mut v = vec![0.0f32; 4];
    launch!(apply[1, 4](Op::Add, &[Op::Add], &mut v)).unwrap();
}
