use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32]) {
    let tile = shared_array::<[f32; 256]>();
    cp_async_cg::<4>(tile, 0, a, 0);
    cp_async_wait_all();
}

fn main() {}
