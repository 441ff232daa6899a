use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = if c.len() > 1 { 1.0f32 } else { 2u32 };
    c[0] = 0.0;
}

fn main() {}
