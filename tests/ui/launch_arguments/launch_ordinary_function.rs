use cudajit::prelude::*;

fn not_a_kernel(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() -> cudajit::Result<()> {
    let mut c = vec![0.0f32; 4];
    launch!(not_a_kernel[1, 4](&mut c))
}
