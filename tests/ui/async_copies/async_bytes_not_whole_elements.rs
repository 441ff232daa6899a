use cudajit::prelude::*;

#[kernel]
fn k(a: &[f64]) {
    let tile = shared_array::<[f64; 64]>();
    cp_async::<4>(tile, 0, a, 0);
    cp_async_wait_all();
}

fn main() {}
