use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x: f32 = if c.len() > 1 { 1.0 };
    c[0] = x;
}

fn main() {}
