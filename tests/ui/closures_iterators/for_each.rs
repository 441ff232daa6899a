use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c.iter_mut().for_each(|x| *x = 0.0);
}

fn main() {}
