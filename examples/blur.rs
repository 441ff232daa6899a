//! A 3x3 box blur over a 1920x1080 single-channel image (640x360 on the CPU simulator):
//! 2-D launch, `grid(2)`, nested `for` loops and clamped borders. Checks against an f64
//! CPU reference.
//!
//! `cargo run --release --example blur`

use cudajit::prelude::*;

#[path = "common/mod.rs"]
mod common;

#[kernel]
fn blur(src: &[f32], dst: &mut [f32], width: usize, height: usize) {
    let (x, y) = grid(2);
    if x < width && y < height {
        let mut sum = 0.0f32;
        for dy in 0i64..3 {
            for dx in 0i64..3 {
                // Clamp to the border: edge pixels repeat.
                let sx = (x as i64 + dx - 1).max(0).min(width as i64 - 1) as usize;
                let sy = (y as i64 + dy - 1).max(0).min(height as i64 - 1) as usize;
                sum += src[sy * width + sx];
            }
        }
        dst[y * width + x] = sum / 9.0;
    }
}

fn blur_reference(src: &[f32], width: usize, height: usize) -> Vec<f64> {
    let mut out = vec![0.0; width * height];
    for y in 0..height {
        for x in 0..width {
            let mut sum = 0.0f64;
            for dy in 0..3i64 {
                for dx in 0..3i64 {
                    let sx = (x as i64 + dx - 1).clamp(0, width as i64 - 1) as usize;
                    let sy = (y as i64 + dy - 1).clamp(0, height as i64 - 1) as usize;
                    sum += src[sy * width + sx] as f64;
                }
            }
            out[y * width + x] = sum / 9.0;
        }
    }
    out
}

fn main() -> common::MainResult {
    let device = common::announce("blur")?;
    let (width, height) = (
        common::size_for(&device, 1920, 640),
        common::size_for(&device, 1080, 360),
    );
    let mut rng = common::Rng::fresh("blur");
    let src = rng.vec_f32(width * height, 0.0, 1.0);
    let want = blur_reference(&src, width, height);
    // Nine f32 additions of values < 1 and a division: well inside 1e-5.
    let (abs, rel) = (1e-5, 1e-5);

    let block = (16u32, 16u32);
    let grid = (width.div_ceil(16), height.div_ceil(16));
    let mut dst = vec![f32::NAN; width * height];
    launch!(blur[grid, block](&src, &mut dst, width, height))?;
    common::compare("blur (host slices)", &dst, &want, abs, rel)?;

    let dsrc = cudajit::to_device(&src)?;
    let mut ddst = cudajit::to_device(&vec![f32::NAN; width * height])?;
    let stream = Stream::new()?;
    let ms = common::time_on(
        &stream,
        || launch!(blur[grid, block, stream, 0](&dsrc, &mut ddst, width, height)),
    )?;
    common::compare("blur (device arrays)", &ddst.to_host()?, &want, abs, rel)?;
    println!(
        "blur: {width}x{height}, OK; {}",
        common::describe_time(&device, ms, width * height, 2 * 4 * width * height)
    );
    Ok(())
}
