use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let tb = shared_array::<[bf16; 4096]>();
    let db = wgmma_descriptor(tb, 0, 128, 0, 1024);
    let a = pack_bf16x2(1.0, 2.0);
    // An A from registers is four u32 per thread (64 x 16 bf16 over 128 threads), not three.
    let (d0, d1, d2, d3) = wgmma_m64n8k16_f32_bf16_rs(a, a, a, db, 0, 0.0, 0.0, 0.0, 0.0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
