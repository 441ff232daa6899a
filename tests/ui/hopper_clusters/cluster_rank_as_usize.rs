use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    // %cluster_ctarank is a u32, as block_idx().x is.
    let rank: usize = cluster_block_rank();
    out[rank] = 1;
}

fn main() {}
