use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f64]) {
    let ta = shared_array::<[bf16; 4096]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    let z = 0.0f64;
    let (d0, d1, d2, d3) = wgmma_m64n8k16_f32_bf16(da, da, 0, z, z, z, z);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
