use cudajit::prelude::*;

#[kernel]
fn k(x: f32, c: &mut [f32]) {
    c[0] = x;
}

fn main() -> cudajit::Result<()> {
    let mut c = vec![0.0f32; 4];
    launch!(k[1, 4](2.0f64, &mut c))
}
