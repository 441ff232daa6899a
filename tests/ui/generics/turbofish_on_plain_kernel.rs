use cudajit::prelude::*;

#[kernel]
fn k(x: &mut [f32]) {
    x[0] = x[1];
}

fn main() {
    let mut x = vec![1.0f32; 2];
    // `k` is not generic: one error, the launch's (its registration to compile while a
    // GPU opens adds none).
    let _ = launch!(k::<f32>[1, 1](&mut x));
}
