use cudajit::prelude::*;

#[kernel]
fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    c[i] = a[i] + b[i];
}

fn main() {
    let (a, b, mut c) = (vec![1.0f32; 4], vec![2.0f32; 4], vec![0.0f32; 4]);
    vecadd(&a, &b, &mut c);
}
