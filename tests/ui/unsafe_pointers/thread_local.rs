use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    thread_local! {
        static X: u32 = 0;
    }
    c[0] = 0.0;
}

fn main() {}
