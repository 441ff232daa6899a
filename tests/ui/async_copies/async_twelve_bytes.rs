use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32]) {
    let tile = shared_array::<[f32; 256]>();
    cp_async::<12>(tile, 0, a, 0);
    cp_async_wait_all();
}

fn main() {}
