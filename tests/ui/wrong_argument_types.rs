use cudajit::prelude::*;

#[kernel]
fn scale(a: &[f32], c: &mut [f32], factor: f32) {
    let i = grid(1);
    c[i] = a[i] * factor;
}

fn main() -> cudajit::Result<()> {
    let ints = vec![1i32; 4];
    let floats = vec![1.0f32; 4];
    let mut out = vec![0.0f32; 4];
    // `&[i32]` where the kernel takes `&[f32]`.
    launch!(scale[1, 4](&ints, &mut out, 2.0))?;
    // A shared slice where the kernel writes.
    launch!(scale[1, 4](&floats, &floats, 2.0))?;
    // `f64` where the kernel takes `f32`.
    launch!(scale[1, 4](&floats, &mut out, 2.0f64))?;
    Ok(())
}
