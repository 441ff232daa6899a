use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = match c.len() {
        0 => 0.0,
        _ => 1.0,
    };
    c[0] = x;
}

fn main() {}
