use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(u8)]
enum Op {
    Add,
    Mul,
}

#[kernel]
fn k(codes: &[u8], out: &mut [Op]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = codes[i] as Op;
    }
}

fn main() {}
