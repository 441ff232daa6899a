use cudajit::prelude::*;

#[kernel]
fn k(bytes: &mut [u8]) {
    atomic_add(bytes, 0, 1);
}

fn main() {}
