use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let ta = shared_array::<[e4m3; 4096]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    // fp8 wgmmas read both operands K-major: there is no transposed fp8 form.
    let (d0, d1, d2, d3) = wgmma_m64n8k32_f32_e4m3_trans_b(da, da, 0, 0.0, 0.0, 0.0, 0.0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
