use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    extern "C" {
        fn abs(x: i32) -> i32;
    }
    c[0] = 0.0;
}

fn main() {}
