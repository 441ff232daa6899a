use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = no_such_function(c[0]);
}

fn main() {}
