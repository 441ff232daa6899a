use cudajit::prelude::*;

#[kernel]
fn scale<T: Float>(x: &mut [T], by: T) {
    let i = grid(1);
    if i < x.len() {
        x[i] = x[i] * by;
    }
}

fn main() {
    let mut x = vec![1.0f32; 4];
    scale(&mut x, 2.0);
}
