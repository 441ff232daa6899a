//! Calls of `#[device]` functions across modules (a bare name, `self::`, `super::`, a
//! module path) compile, and launching with every argument kind type-checks.
use cudajit::prelude::*;

mod helpers {
    use cudajit::prelude::*;

    #[device]
    pub fn square(x: f32) -> f32 {
        x * x
    }

    #[device]
    pub fn square_plus(x: f32, y: f32) -> f32 {
        self::square(x) + super::offset(y)
    }
}

#[device]
fn offset(y: f32) -> f32 {
    y + 1.0
}

#[kernel]
fn calls(a: &[f32], out: &mut [f32], k: u32) {
    let i = grid(1);
    out[i] = helpers::square_plus(a[i], offset(k as f32));
}

#[allow(dead_code)]
fn launches() -> cudajit::Result<()> {
    let a = vec![1.0f32; 8];
    let mut out = vec![0.0f32; 8];
    launch!(calls[1, 8](&a, &mut out, 3))?;
    let stream = cudajit::Stream::new()?;
    let device = cudajit::to_device(&a)?;
    let mut dout = cudajit::DeviceArray::<f32>::zeros(8)?;
    launch!(calls[(1, 1), (8, 1, 1), stream, 0](&device, &mut dout, 3u32))?;
    calls::launch(LaunchConfig::new(1, 8), &a[..], &mut out[..], 3)
}

fn main() {}
