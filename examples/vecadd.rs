//! `c = a + b` over 2^24 + 3 floats (2^20 + 3 on the CPU simulator), the addition done
//! by a `#[device]` function from another module. Checks against the CPU, then times the
//! kernel alone on device arrays.
//!
//! `cargo run --release --example vecadd` (on an NVIDIA GPU; without one, on the CPU
//! simulator).

use cudajit::prelude::*;

#[path = "common/mod.rs"]
mod common;

mod helpers {
    use cudajit::prelude::*;

    /// Device functions take and return values like any Rust fn.
    #[device]
    pub fn add(x: f32, y: f32) -> f32 {
        x + y
    }
}

#[kernel]
fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = helpers::add(a[i], b[i]);
    }
}

fn main() -> common::MainResult {
    let device = common::announce("vecadd")?;
    // Not a multiple of the block: the `if` matters.
    let n = common::size_for(&device, (1 << 24) + 3, (1 << 20) + 3);
    let mut rng = common::Rng::fresh("vecadd");
    let a = rng.vec_f32(n, -1.0, 1.0);
    let b = rng.vec_f32(n, -1.0, 1.0);
    // f32 addition is exact to round: the reference is the same f32 sum.
    let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| (x + y) as f64).collect();

    let threads = 256;
    let blocks = n.div_ceil(threads);

    // Host slices: copied in, `c` copied back. The first launch compiles the kernel.
    let mut c = vec![f32::NAN; n];
    let first = std::time::Instant::now();
    launch!(vecadd[blocks, threads](&a, &b, &mut c))?;
    let first = first.elapsed();
    common::compare("vecadd (host slices)", &c, &want, 0.0, 0.0)?;

    // Device arrays: no copies, the launch alone is timed.
    let (da, db) = (cudajit::to_device(&a)?, cudajit::to_device(&b)?);
    let mut dc = cudajit::to_device(&vec![f32::NAN; n])?;
    let stream = Stream::new()?;
    let ms = common::time_on(
        &stream,
        || launch!(vecadd[blocks, threads, stream, 0](&da, &db, &mut dc)),
    )?;
    common::compare("vecadd (device arrays)", &dc.to_host()?, &want, 0.0, 0.0)?;

    println!(
        "vecadd: n = {n}, OK; {}; first launch incl. JIT and copies {:.1} ms",
        common::describe_time(&device, ms, n, 3 * 4 * n),
        first.as_secs_f64() * 1e3
    );
    Ok(())
}
