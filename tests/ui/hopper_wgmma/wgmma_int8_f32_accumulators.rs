use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let ta = shared_array::<[i8; 4096]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    // 8-bit integer inputs accumulate in i32, not f32.
    let (d0, d1, d2, d3) = wgmma_m64n8k32_i32_i8_u8(da, da, 0, 0.0, 0.0, 0.0, 0.0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
