use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [i32]) {
    let ta = shared_array::<[i8; 4096]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    // PTX spells the types `.s32.s8.u8`; cudajit's names are Rust's (`i32_i8_u8`).
    let (d0, d1, d2, d3) = wgmma_m64n8k32_s32_s8_u8(da, da, 0, 0, 0, 0, 0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
