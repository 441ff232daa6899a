use cudajit::prelude::*;

const SWIZZLE_REPEAT: usize = 1024;

#[kernel]
fn k(out: &mut [u16]) {
    // The alignment is written as a literal, where the reader of the kernel sees it.
    let tile = shared_array_aligned::<[u16; 4096], SWIZZLE_REPEAT>();
    tile[0] = 1;
    out[0] = tile[0];
}

fn main() {}
