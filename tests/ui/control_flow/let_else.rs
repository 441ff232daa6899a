use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let 4 = c.len() else {
        return;
    };
    c[0] = 0.0;
}

fn main() {}
