use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let ta = shared_array::<[e4m3; 4096]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    // N = 12 is not a multiple of 8: no such wgmma.
    let (d0, d1, d2, d3, d4, d5) = wgmma_m64n12k32_f32_e4m3(da, da, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    c[0] = d0 + d1 + d2 + d3 + d4 + d5;
}

fn main() {}
