use cudajit::prelude::*;

#[kernel]
fn fill(c: &mut [f32]) {
    c[0] = 1.0;
}

#[device]
fn helper(c: &mut [f32]) {
    fill(c);
}

fn main() {}
