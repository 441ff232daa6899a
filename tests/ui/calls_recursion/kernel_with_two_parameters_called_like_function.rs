use cudajit::prelude::*;

#[kernel]
fn scale(c: &mut [f32], by: f32) {
    let i = grid(1);
    c[i] *= by;
}

fn main() {
    let mut c = vec![1.0f32; 4];
    scale(&mut c, 2.0);
}
