use cudajit::prelude::*;

#[kernel]
fn k<T: Float>(x: &mut [T]) {
    x[0] = x[1];
}

fn main() {
    let mut x = vec![1i32; 2];
    // `i32` is no `Float`: rustc refuses the launch.
    let _ = launch!(k::<i32>[1, 1](&mut x));
}
