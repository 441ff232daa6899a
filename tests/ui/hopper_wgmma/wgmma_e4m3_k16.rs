use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let ta = shared_array::<[e4m3; 4096]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    // An fp8 wgmma reads 32 bytes of K: k32, not bf16's k16.
    let (d0, d1, d2, d3) = wgmma_m64n8k16_f32_e4m3(da, da, 0, 0.0, 0.0, 0.0, 0.0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
