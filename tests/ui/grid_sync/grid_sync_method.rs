use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let g = this_grid();
    g.sync();
    c[0] = 0.0;
}

fn main() {}
