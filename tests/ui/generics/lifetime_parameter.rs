use cudajit::prelude::*;

#[kernel]
fn k<'a>(c: &'a mut [f32]) {
    c[0] = 1.0;
}

fn main() {}
