use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let n = Vec::<f32>::new().len();
    c[0] = n as f32;
}

fn main() {}
