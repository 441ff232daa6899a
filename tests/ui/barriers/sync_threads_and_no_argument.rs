use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b = sync_threads_and();
    c[0] = 0.0;
}

fn main() {}
