use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [i32]) {
    let ta = shared_array::<[i8; 4096]>();
    let da = wgmma_descriptor(ta, 0, 128, 0, 1024);
    // The integer wgmmas have N = 8, 16, 24, 32 and then multiples of 16: no n40.
    let (d0, d1) = wgmma_m64n40k32_i32_i8_i8(da, da, 0, 0, 0);
    c[0] = d0 + d1;
}

fn main() {}
