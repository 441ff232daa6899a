use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    // The cluster barrier takes every thread of the cluster: no count, no mask.
    cluster_sync(2);
    out[0] = 1;
}

fn main() {}
