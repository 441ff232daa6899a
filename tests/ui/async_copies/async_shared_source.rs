use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32]) {
    let tile = shared_array::<[f32; 256]>();
    let staging = shared_array::<[f32; 256]>();
    cp_async::<16>(tile, 0, staging, 0);
    cp_async_wait_all();
}

fn main() {}
