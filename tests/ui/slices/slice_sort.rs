use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c.sort_by(|a, b| a.total_cmp(b));
}

fn main() {}
