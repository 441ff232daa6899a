use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let tb = shared_array::<[bf16; 4096]>();
    let db = wgmma_descriptor(tb, 0, 128, 0, 1024);
    let s = c[1];
    let a = pack_bf16x2(s, s);
    // The accumulator's f32 must be packed into bf16 pairs first (`pack_bf16x2`).
    let (d0, d1, d2, d3) = wgmma_m64n8k16_f32_bf16_rs(s, a, a, a, db, 0, 0.0, 0.0, 0.0, 0.0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
