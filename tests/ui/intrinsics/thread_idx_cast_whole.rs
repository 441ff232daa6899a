use cudajit::prelude::*;

// `thread_idx()` is a `Dim3`: the message names it and its `.x`.
#[kernel]
fn k(c: &mut [f32]) {
    let i = thread_idx() as usize;
    c[i] = 0.0;
}

fn main() {}
