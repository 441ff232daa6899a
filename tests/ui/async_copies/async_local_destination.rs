use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32]) {
    let mut buffer = [0.0f32; 4];
    cp_async::<16>(&mut buffer, 0, a, 0);
    cp_async_wait_all();
}

fn main() {}
