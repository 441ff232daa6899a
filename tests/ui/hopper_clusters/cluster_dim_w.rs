use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    // A cluster has three axes, as a grid does.
    out[0] = cluster_dim().w;
}

fn main() {}
