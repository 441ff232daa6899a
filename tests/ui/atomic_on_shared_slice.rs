use cudajit::prelude::*;

#[kernel]
fn k(counts: &[u32]) {
    atomic_add(counts, 0, 1);
}

fn main() {}
