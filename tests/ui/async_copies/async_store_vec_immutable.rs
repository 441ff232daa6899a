use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32]) {
    a.store_vec::<4>(0, [1.0, 2.0, 3.0, 4.0]);
}

fn main() {}
