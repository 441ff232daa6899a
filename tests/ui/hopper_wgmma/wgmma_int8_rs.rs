use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [i32]) {
    let tb = shared_array::<[u8; 4096]>();
    let db = wgmma_descriptor(tb, 0, 128, 0, 1024);
    // cudajit gives the integer wgmmas no A from registers.
    let (d0, d1, d2, d3) = wgmma_m64n8k32_i32_u8_u8_rs(1, 2, 3, 4, db, 0, 0, 0, 0, 0);
    c[0] = d0 + d1 + d2 + d3;
}

fn main() {}
