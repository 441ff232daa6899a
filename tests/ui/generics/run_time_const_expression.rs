use cudajit::prelude::*;

#[kernel]
fn k<const N: usize>(x: &mut [f32]) {
    x[0] = N as f32;
}

fn main() {
    let mut x = vec![0.0f32; 4];
    // A const expression over a `let` value: not known at compile time either.
    let n = 4;
    let _ = launch!(k::<{ n * 2 }>[1, 1](&mut x));
}
