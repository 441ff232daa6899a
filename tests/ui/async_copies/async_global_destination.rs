use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let t = thread_idx().x as usize;
    cp_async::<16>(out, t * 4, a, t * 4);
    cp_async_wait_all();
}

fn main() {}
