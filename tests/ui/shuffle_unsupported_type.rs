use cudajit::prelude::*;

#[kernel]
fn k(flags: &mut [bool]) {
    let i = grid(1);
    flags[i] = shfl_sync(0xffff_ffff, flags[i], 0);
}

fn main() {}
