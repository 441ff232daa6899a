use cudajit::prelude::*;

#[kernel]
fn k<const N: usize>(x: &mut [f32]) {
    x[0] = N as f32;
}

fn main() {
    let mut x = vec![0.0f32; 4];
    // A `let` value as the const generic argument: not known at compile time.
    let n = 4;
    let _ = launch!(k::<n>[1, 1](&mut x));
}
