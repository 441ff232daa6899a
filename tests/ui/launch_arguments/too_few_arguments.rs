use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    c[0] = a[0];
}

fn main() -> cudajit::Result<()> {
    let mut c = vec![0.0f32; 4];
    launch!(k[1, 4](&mut c))
}
