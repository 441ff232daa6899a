use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u16]) {
    // A swizzled tile's alignment is its swizzle's repeat: 256, 512 or 1024 bytes.
    let tile = shared_array_aligned::<[u16; 4096], 1000>();
    tile[0] = 1;
    out[0] = tile[0];
}

fn main() {}
