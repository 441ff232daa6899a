use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    if let 4 = c.len() {
        c[0] = 0.0;
    }
}

fn main() {}
