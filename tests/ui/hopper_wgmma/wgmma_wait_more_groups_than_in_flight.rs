use cudajit::prelude::*;

#[kernel]
fn k() {
    wgmma_fence();
    wgmma_commit_group();
    wgmma_wait_group_4();
}

fn main() {}
