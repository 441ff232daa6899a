use cudajit::prelude::*;

#[kernel]
fn zero(c: &mut [f32]) {
    let i = grid(1);
    c[i] = 0.0;
}

fn main() {
    let mut c = vec![1.0f32; 4];
    zero(&mut c);
}
