use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    static mut COUNT: u32 = 0;
    c[0] = 0.0;
}

fn main() {}
