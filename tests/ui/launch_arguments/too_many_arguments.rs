use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() -> cudajit::Result<()> {
    let mut c = vec![0.0f32; 4];
    launch!(k[1, 4](&mut c, 3))
}
