use cudajit::prelude::*;

// `Num` covers the integers, which have no `sqrt`: cudajit finds it checking `T = i32`.
#[kernel]
fn k<T: Num>(x: &mut [T]) {
    x[0] = x[1].sqrt();
}

fn main() {}
