// Const generic arguments `launch!` must pass through unchanged: a literal, a `const`
// item, const expressions (with a method, a path and a cast) and lowercase types.
use cudajit::prelude::*;

#[kernel]
fn k<T: Num, const N: usize>(x: &mut [T]) {
    x[0] = x[N];
}

const TILE: usize = 2;

fn main() {
    let mut x = vec![0.0f32; 8];
    let mut y = vec![0u8; 8];
    let _ = launch!(k::<f32, 1>[1, 1](&mut x));
    let _ = launch!(k::<f32, TILE>[1, 1](&mut x));
    let _ = launch!(k::<u8, { TILE * 2 }>[1, 1](&mut y));
    let _ = launch!(k::<f32, { TILE.pow(2) + core::mem::size_of::<u8>() }>[1, 1](&mut x));
    let _ = launch!(k::<f32, { 7u32 as usize }>[1, 1](&mut x));
}
