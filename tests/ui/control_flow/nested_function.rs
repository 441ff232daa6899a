use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    fn helper(x: f32) -> f32 {
        x
    }
    c[0] = 0.0;
}

fn main() {}
