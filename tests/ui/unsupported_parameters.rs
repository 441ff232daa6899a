use cudajit::prelude::*;

#[kernel]
fn k(a: Vec<f32>, (x, y): (f32, f32), s: &str, c: &mut [f32]) {
    c[0] = x + y;
}

fn main() {
    // The launcher still exists, so uses elsewhere report nothing more.
    let _ = k;
}
