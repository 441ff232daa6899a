use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let ta = shared_array::<[bf16; 4096]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    // m64n16 has 8 accumulator registers per thread, not 4.
    let (d0, d1, d2, d3) = wgmma_m64n16k16_f32_bf16(da, da, 0, 0.0, 0.0, 0.0, 0.0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
