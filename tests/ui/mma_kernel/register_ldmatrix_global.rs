// Through #[kernel]: the register-level ldmatrix of a global slice.
use cudajit::prelude::*;

#[kernel]
fn k(a: &mut [u16], d: &mut [u32]) {
    let (r0, r1) = ldmatrix_x2(a, (lane_id() as usize % 16) * 8);
    d[0] = r0 + r1;
}

fn main() {}
