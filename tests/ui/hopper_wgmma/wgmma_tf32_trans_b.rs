use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let ta = shared_array::<[f32; 2048]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    // tf32 wgmmas read both operands K-major: there is no transposed tf32 form.
    let (d0, d1, d2, d3) = wgmma_m64n8k8_f32_tf32_trans_b(da, da, 0, 0.0, 0.0, 0.0, 0.0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
