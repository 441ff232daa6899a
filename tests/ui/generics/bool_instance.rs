use cudajit::prelude::*;

#[kernel]
fn k<T: Num>(x: &mut [T]) {
    x[0] = x[1];
}

fn main() {
    let mut x = vec![true; 2];
    let _ = launch!(k::<bool>[1, 1](&mut x));
}
