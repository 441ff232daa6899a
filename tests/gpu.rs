//! End-to-end tests, written once for both backends: each kernel runs on fresh random
//! inputs with poisoned outputs and is compared with a CPU reference. They run on the
//! default device: the CPU simulator on a machine without a GPU (CI), a GPU in the GPU
//! bundle (`cargo xtask gpu-bundle`, whose run.sh sets `CUDAJIT_BACKEND=cuda`). The few
//! checks of what differs (a GPU's timeout against the simulator's divergence report,
//! sizes the simulator would take minutes over) ask `device.is_simulator()`.

use cudajit::prelude::*;

/// Says why a test did not run, on stderr written directly so that the test
/// harness's output capture does not hide the reason.
macro_rules! skip {
    ($($reason:tt)*) => {{
        use std::io::Write as _;
        let test = std::thread::current().name().unwrap_or("test").to_string();
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", format_args!($($reason)*));
    }};
}

#[path = "../examples/common/mod.rs"]
mod common;

/// The default device (a GPU, or the CPU simulator), or return from the test saying why
/// it is skipped.
macro_rules! require_gpu {
    () => {
        match cudajit::Device::default() {
            Ok(device) => device,
            Err(e) => {
                skip!("no GPU ({e})");
                return;
            }
        }
    };
}

/// The 1-based line of this file holding `marker` (for expected `file:line` texts).
fn line_of(marker: &str) -> usize {
    include_str!("gpu.rs")
        .lines()
        .position(|l| l.contains(marker))
        .expect("marker present")
        + 1
}

mod helpers {
    use cudajit::prelude::*;

    #[device]
    pub fn add(x: f32, y: f32) -> f32 {
        x + y
    }

    /// Every control-flow form of the subset; also runs on the host as the reference.
    #[device]
    pub fn control(i: i64) -> i64 {
        let mut acc = 0i64;
        // for over a..b and a..=b, with continue
        for k in 0..i % 7 {
            if k == 2 {
                continue;
            }
            acc += k;
        }
        for k in 1..=3 {
            acc *= k;
        }
        // while with compound assignments
        let mut n = i;
        while n > 1 {
            n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
            acc ^= n & 0xff;
        }
        // loop with break value
        let mut m = 0i64;
        let found = loop {
            m += 1;
            if m * m > i {
                break m;
            }
        };
        // labelled loops
        let mut pairs = 0i64;
        'outer: for a in 0..5i64 {
            for b in 0..5i64 {
                if a + b > i % 6 {
                    continue 'outer;
                }
                if a * b > 6 {
                    break 'outer;
                }
                pairs += 1;
            }
        }
        // block expression, shadowing, tuples, short-circuit logic
        let t = {
            let x = found * 2;
            (x, x + 1)
        };
        let acc = acc + t.0 - t.1;
        let (p, q) = (pairs, acc);
        if p > 3 && q != 0 || i < 0 {
            return p * 1000 + q;
        } else if !(p > 1) {
            return -q;
        }
        q + found
    }
}

#[kernel]
fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = helpers::add(a[i], b[i]);
    }
}

#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let mut i = grid(1);
    let stride = grid_size(1);
    while i < y.len() {
        y[i] = a * x[i] + y[i];
        i += stride;
    }
}

#[kernel]
fn transpose(src: &[f32], dst: &mut [f32], width: usize, height: usize) {
    let (x, y) = grid(2);
    if x < width && y < height {
        dst[x * height + y] = src[y * width + x];
    }
}

#[kernel]
fn control_flow(out: &mut [i64]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = helpers::control(i as i64);
    }
}

#[test]
fn vecadd_matches_cpu() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("vecadd");
    let n = 100_000 + rng.below(1000) as usize;
    let (a, b) = (rng.vec_f32(n, -10.0, 10.0), rng.vec_f32(n, -10.0, 10.0));
    let mut c = vec![f32::NAN; n];
    launch!(vecadd[n.div_ceil(128), 128](&a, &b, &mut c)).unwrap();
    let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| (x + y) as f64).collect();
    common::compare("vecadd", &c, &want, 0.0, 0.0).unwrap();
}

#[test]
fn saxpy_matches_cpu() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("saxpy");
    let n = 50_000 + rng.below(1000) as usize;
    let a = rng.f32_in(-3.0, 3.0);
    let (x, y0) = (rng.vec_f32(n, -1.0, 1.0), rng.vec_f32(n, -1.0, 1.0));
    let mut y = y0.clone();
    launch!(saxpy[7, 64](a, &x, &mut y)).unwrap();
    let want: Vec<f64> = x
        .iter()
        .zip(&y0)
        .map(|(&x, &y)| a as f64 * x as f64 + y as f64)
        .collect();
    common::compare(
        "saxpy",
        &y,
        &want,
        16.0 * f32::EPSILON as f64,
        2.0 * f32::EPSILON as f64,
    )
    .unwrap();
}

#[test]
fn transpose_2d_matches_cpu() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("transpose");
    let (w, h) = (301 + rng.below(50) as usize, 199 + rng.below(50) as usize);
    let src = rng.vec_f32(w * h, -1.0, 1.0);
    let mut dst = vec![f32::NAN; w * h];
    launch!(transpose[(w.div_ceil(16), h.div_ceil(8)), (16, 8)](&src, &mut dst, w, h)).unwrap();
    let mut want = vec![0.0f64; w * h];
    for y in 0..h {
        for x in 0..w {
            want[x * h + y] = src[y * w + x] as f64;
        }
    }
    common::compare("transpose", &dst, &want, 0.0, 0.0).unwrap();
}

#[test]
fn every_control_flow_form_matches_host() {
    let _gpu = require_gpu!();
    let n = 4096;
    let mut out = vec![i64::MIN; n];
    launch!(control_flow[n / 128, 128](&mut out)).unwrap();
    for (i, got) in out.iter().enumerate() {
        assert_eq!(*got, helpers::control(i as i64), "control({i})");
    }
}

#[path = "gpu/math.rs"]
mod math;

#[path = "gpu/errors.rs"]
mod errors;

#[path = "gpu/guards.rs"]
mod guards;

#[path = "gpu/loops.rs"]
mod loops;

#[path = "gpu/exact.rs"]
mod exact;

#[path = "gpu/cooperative.rs"]
mod cooperative;

#[path = "gpu/exits.rs"]
mod exits;

#[path = "gpu/random.rs"]
mod random;

#[path = "gpu/slices.rs"]
mod slices;

#[path = "gpu/simt.rs"]
mod simt;

#[path = "gpu/warp.rs"]
mod warp;
// tensor cores
#[path = "gpu/mma.rs"]
mod mma;
// tensor cores: the typed fragment API
#[path = "gpu/mma_typed.rs"]
mod mma_typed;

#[path = "gpu/numeric.rs"]
mod numeric;

#[path = "gpu/arrays.rs"]
mod arrays;

/// The SIMT benchmark suite, kernels and host code, as a module: its kernels are
/// tested at small sizes by `bench_suite` (its host code is not run here).
#[path = "../bench/simt.rs"]
#[allow(dead_code)]
mod bench_simt;

#[path = "gpu/bench_suite.rs"]
mod bench_suite;
#[path = "gpu/block_dim.rs"]
mod block_dim;
#[path = "gpu/launch_proof.rs"]
mod launch_proof;
#[path = "gpu/loop_guards.rs"]
mod loop_guards;
#[path = "gpu/prefetch.rs"]
mod prefetch;

#[path = "gpu/generics.rs"]
mod generics;

#[path = "gpu/complex.rs"]
mod complex;
#[path = "gpu/enums.rs"]
mod enums;
#[path = "gpu/half.rs"]
mod half_precision;
#[path = "gpu/hl.rs"]
mod hl;
#[path = "gpu/hl_argmax.rs"]
mod hl_argmax;

#[path = "gpu/hl_axis.rs"]
mod hl_axis;
#[path = "gpu/hl_scan.rs"]
mod hl_scan;
#[path = "gpu/matching.rs"]
mod matching;
#[path = "gpu/runtime.rs"]
mod runtime;

#[path = "gpu/methods.rs"]
mod methods;
#[path = "gpu/nd.rs"]
mod nd;
#[path = "gpu/structs.rs"]
mod structs;

// async copies
#[path = "gpu/async_copy.rs"]
mod async_copy;
// Hopper
#[path = "gpu/mbarrier.rs"]
mod mbarrier;
// Hopper: wgmma
#[path = "gpu/wgmma.rs"]
mod wgmma;
#[path = "gpu/wgmma_attention.rs"]
mod wgmma_attention;
#[path = "gpu/wgmma_forms.rs"]
mod wgmma_forms;
#[path = "gpu/wgmma_types.rs"]
mod wgmma_types;
// Hopper: TMA
#[path = "gpu/tma.rs"]
mod tma;
#[path = "gpu/tma_multicast.rs"]
mod tma_multicast;
// Hopper: clusters
#[path = "gpu/cluster.rs"]
mod cluster;
