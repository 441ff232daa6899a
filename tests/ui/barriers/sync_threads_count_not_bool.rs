use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let n = sync_threads_count(1);
    c[0] = 0.0;
}

fn main() {}
