use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    unsafe {
        c[0] = 0.0;
    }
}

fn main() {}
