use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    bulk_commit_group();
    // PTX's `cp.async.bulk.wait_group.read` leaves 0 to 7 groups pending here.
    bulk_wait_group_read::<9>();
    out[0] = 1;
}

fn main() {}
