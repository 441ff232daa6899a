//! The SIMT benchmark suite's own kernels (`bench/simt.rs`, compiled into this test
//! crate as a module, so the kernels tested here are the kernels timed there, in both
//! builds: `checked` with bounds checks and `nocheck` without), at test sizes, on
//! fresh random inputs with poisoned outputs, against CPU references. On the simulator
//! this is the proof that every benchmarked kernel (register-tiled SGEMM, the
//! warp-shuffle sum with one atomic per block, the block and multi-block scans, ...)
//! computes the right thing without a GPU; on the H100 the same tests run from the
//! bundle at larger sizes.
//!
//! Inputs are integer-valued where the kernels add floats, so every summation order
//! gives the same exact result and the comparison can be `==`.

use super::bench_simt::{checked, nocheck, Body, Vec3};
use super::common;
use cudajit::prelude::*;
use cudajit::random::init_xoroshiro128p_states;
use cudajit::LaunchConfig;

/// Runs `$body` once with `$kernel` naming the bounds-checked build of the suite's
/// kernel `$name` and once with the unchecked build; `$build` names which, for messages.
/// Launching the unchecked build is `unsafe` (`boundscheck = false`): its run comes
/// second, with the shapes and buffers the checked run has just proven in bounds.
macro_rules! each_build {
    ($name:ident, |$kernel:ident, $build:ident| $body:block) => {{
        {
            #[allow(unused_imports)]
            use checked::$name as $kernel;
            let $build = "checked";
            $body
        }
        {
            #[allow(unused_imports)]
            use nocheck::$name as $kernel;
            let $build = "nocheck";
            // SAFETY: the same launches as the checked run above, which returned Ok.
            #[allow(unused_unsafe, clippy::macro_metavars_in_unsafe)]
            let () = unsafe { $body };
        }
    }};
}

/// Small non-negative integers as `f32`: any sum of fewer than 2^24 / max of them is
/// exact in f32, whatever the order of the additions.
fn small_int_floats(rng: &mut common::Rng, n: usize, below: u64) -> Vec<f32> {
    (0..n).map(|_| rng.below(below) as f32).collect()
}

/// Integer-valued floats in `-r..=r`.
fn signed_int_floats(rng: &mut common::Rng, n: usize, r: i64) -> Vec<f32> {
    (0..n)
        .map(|_| (rng.below(2 * r as u64 + 1) as i64 - r) as f32)
        .collect()
}

#[test]
fn copy_kernel_copies_every_element() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench copy");
    let n = common::size_for(&gpu, 1 << 22, 1 << 14) + rng.below(200) as usize;
    let input = rng.vec_f32(n, -1.0, 1.0);
    each_build!(copy_kernel, |k, build| {
        let mut out = vec![f32::NAN; n];
        launch!(k[n.div_ceil(256), 256](&input, &mut out)).unwrap();
        assert!(
            out.iter()
                .zip(&input)
                .all(|(o, i)| o.to_bits() == i.to_bits()),
            "{build} copy"
        );
    });
}

#[test]
fn sums_through_shared_memory_and_warp_shuffles_are_exact() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench sums");
    // Elements below 4: the total stays under 2^24 on the GPU's size, so f32 sums are
    // exact in any order.
    let (n, blocks) = if gpu.is_simulator() {
        (100_000 + rng.below(1000) as usize, 7)
    } else {
        ((1 << 22) + rng.below(1000) as usize, 264)
    };
    let x = small_int_floats(&mut rng, n, 4);
    let total: f64 = x.iter().map(|&v| v as f64).sum();
    // `out` accumulates (one atomic per block): it starts at a random integer.
    let start = rng.below(1000) as f32;
    each_build!(sum_shared, |k, build| {
        let mut out = [start];
        launch!(k[blocks, 256](&x, &mut out)).unwrap();
        assert_eq!(out[0] as f64, start as f64 + total, "{build} sum_shared");
    });
    each_build!(sum_warp, |k, build| {
        let mut out = [start];
        launch!(k[blocks, 256](&x, &mut out)).unwrap();
        assert_eq!(out[0] as f64, start as f64 + total, "{build} sum_warp");
    });
}

/// Row-major n×n product in exact integer arithmetic.
fn matmul_reference(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for r in 0..n {
        for col in 0..n {
            let dot: i64 = (0..n)
                .map(|k| a[r * n + k] as i64 * b[k * n + col] as i64)
                .sum();
            c[r * n + col] = dot as f32;
        }
    }
    c
}

#[test]
fn register_tiled_sgemm_and_numbas_fast_matmul_equal_the_exact_product() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench sgemm");
    // The register-tiled SGEMM takes n as a multiple of its 128×128 block tile; with
    // entries in -4..=4, every dot product is an integer below 2^24: exact in f32.
    let n = if gpu.is_simulator() { 128 } else { 512 };
    let a = signed_int_floats(&mut rng, n * n, 4);
    let b = signed_int_floats(&mut rng, n * n, 4);
    let want = matmul_reference(&a, &b, n);
    let tiles = (n / 128) as u32;
    each_build!(sgemm, |k, build| {
        let mut c = vec![f32::NAN; n * n];
        launch!(k[(tiles, tiles), 256](&a, &b, &mut c, n)).unwrap();
        let wrong = (0..n * n).filter(|&i| c[i] != want[i]).count();
        assert_eq!(
            wrong,
            0,
            "{build} sgemm: {wrong} of {} elements differ",
            n * n
        );
    });

    // Numba's fast_matmul takes any n: one that is not a multiple of its 16×16 tile.
    let m = if gpu.is_simulator() { 45 } else { 333 };
    let a = signed_int_floats(&mut rng, m * m, 4);
    let b = signed_int_floats(&mut rng, m * m, 4);
    let want = matmul_reference(&a, &b, m);
    let blocks = m.div_ceil(16) as u32;
    each_build!(fast_matmul, |k, build| {
        let mut c = vec![f32::NAN; m * m];
        launch!(k[(blocks, blocks), (16u32, 16u32)](&a, &b, &mut c, m)).unwrap();
        let wrong = (0..m * m).filter(|&i| c[i] != want[i]).count();
        assert_eq!(wrong, 0, "{build} fast_matmul: {wrong} of {} differ", m * m);
    });
}

#[test]
fn shared_then_global_histogram_counts_every_byte() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench histogram");
    let n = common::size_for(&gpu, 1 << 24, 60_000) + rng.below(100) as usize;
    // Skewed: a few bins take most bytes, so shared atomics contend.
    let x: Vec<u8> = (0..n)
        .map(|_| (rng.below(256) * rng.below(256) / 255) as u8)
        .collect();
    let start: Vec<u32> = (0..256).map(|_| rng.below(1 << 20) as u32).collect();
    let mut want = start.clone();
    for &v in &x {
        want[v as usize] += 1;
    }
    let blocks = if gpu.is_simulator() { 5 } else { 1024 };
    each_build!(histogram, |k, build| {
        let mut hist = start.clone();
        launch!(k[blocks, 256](&x, &mut hist)).unwrap();
        assert_eq!(hist, want, "{build} histogram");
    });
}

#[test]
fn transpose_through_a_padded_tile_moves_every_element() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench transpose");
    let n = if gpu.is_simulator() { 96 } else { 2048 };
    let input = rng.vec_f32(n * n, -1.0, 1.0);
    let tiles = (n / 32) as u32;
    each_build!(transpose, |k, build| {
        let mut out = vec![f32::NAN; n * n];
        launch!(k[(tiles, tiles), (32u32, 8u32)](&input, &mut out, n)).unwrap();
        for r in 0..n {
            for c in 0..n {
                assert_eq!(
                    out[c * n + r].to_bits(),
                    input[r * n + c].to_bits(),
                    "{build} transpose ({r}, {c})"
                );
            }
        }
    });
}

#[test]
fn stencil_with_a_shared_halo_matches_the_f64_reference() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench stencil");
    // A rectangle, so swapped axes show.
    let (nx, ny) = if gpu.is_simulator() {
        (96, 64)
    } else {
        (2048, 1024)
    };
    let input = rng.vec_f32(nx * ny, -1.0, 1.0);
    let at = |r: isize, c: isize| -> f64 {
        if r < 0 || c < 0 || r >= ny as isize || c >= nx as isize {
            0.0
        } else {
            input[r as usize * nx + c as usize] as f64
        }
    };
    let mut want = vec![0.0f64; nx * ny];
    for r in 0..ny as isize {
        for c in 0..nx as isize {
            want[r as usize * nx + c as usize] = 0.5 * at(r, c)
                + 0.125 * (at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1));
        }
    }
    let grid = ((nx / 32) as u32, (ny / 32) as u32);
    each_build!(stencil5, |k, build| {
        let mut out = vec![f32::NAN; nx * ny];
        launch!(k[grid, (32u32, 8u32)](&input, &mut out, nx, ny)).unwrap();
        common::compare(build, &out, &want, 1e-6, 1e-6).unwrap();
    });
}

#[test]
fn block_scan_gives_each_blocks_inclusive_prefixes() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench scan_block");
    let blocks = common::size_for(&gpu, 4096, 24);
    let n = blocks * 256;
    let x: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
    let mut want = vec![0u32; n];
    let mut run = 0u32;
    for i in 0..n {
        run = if i % 256 == 0 { 0 } else { run } + x[i];
        want[i] = run;
    }
    each_build!(scan_block, |k, build| {
        let mut out = vec![u32::MAX; n];
        launch!(k[blocks, 256](&x, &mut out)).unwrap();
        assert_eq!(out, want, "{build} scan_block");
    });
}

#[test]
fn multi_block_scan_gives_inclusive_prefixes_of_the_whole_array() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench scan_multi");
    // Tiles of 16 · 256 elements. More tiles than the totals-scanning block has
    // threads, so its carry loop runs more than once.
    let (tiles, sums_block) = if gpu.is_simulator() {
        (37usize, 32u32)
    } else {
        (1500, 1024)
    };
    let n = tiles * 16 * 256;
    let x: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
    let want: Vec<u32> = x
        .iter()
        .scan(0u32, |run, &v| {
            *run += v;
            Some(*run)
        })
        .collect();
    let cfg = |grid: usize, block: u32| LaunchConfig::new(grid as u32, block);
    // Three kernels of one build in a row (mixing builds is no test of either).
    macro_rules! scan_with {
        ($build:ident) => {{
            let mut sums = vec![u32::MAX; tiles];
            let mut out = vec![u32::MAX; n];
            $build::scan_reduce::launch(cfg(tiles, 256), &x, &mut sums).unwrap();
            $build::scan_sums::launch(cfg(1, sums_block), &mut sums).unwrap();
            $build::scan_downsweep::launch(cfg(tiles, 256), &x, &sums, &mut out).unwrap();
            assert_eq!(out, want, "{} scan_multi", stringify!($build));
        }};
    }
    scan_with!(checked);
    // SAFETY: the same launches as the checked build's just above, which returned Ok.
    unsafe { scan_with!(nocheck) };
}

#[test]
fn monte_carlo_pi_counts_what_the_host_generator_counts() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench monte_carlo_pi");
    let (blocks, iters) = if gpu.is_simulator() {
        (3usize, 64u32)
    } else {
        (264, 1024)
    };
    let threads = blocks * 256;
    let seed = rng.next_u64();
    // The host's replay of every thread's draws (the same generator, in plain Rust).
    let mut host_states = vec![0u64; 2 * threads];
    init_xoroshiro128p_states(&mut host_states, seed);
    let mut want = 0u32;
    for i in 0..threads {
        for _ in 0..iters {
            let x = xoroshiro128p_uniform_f32(&mut host_states, i);
            let y = xoroshiro128p_uniform_f32(&mut host_states, i);
            if x * x + y * y <= 1.0 {
                want += 1;
            }
        }
    }
    each_build!(monte_carlo_pi, |k, build| {
        let mut states = cudajit::random::create_xoroshiro128p_states(threads, seed).unwrap();
        let start = rng.below(1000) as u32;
        let mut hits = [start];
        launch!(k[blocks, 256](&mut states, iters, &mut hits)).unwrap();
        assert_eq!(hits[0], start + want, "{build} monte_carlo_pi");
    });
}

#[test]
fn grid_sync_sum_through_a_cooperative_launch_is_exact() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench grid_sync");
    let blocks = if gpu.is_simulator() {
        4
    } else {
        2 * gpu.multiprocessor_count()
    };
    let n = common::size_for(&gpu, 1 << 22, 30_000) + rng.below(100) as usize;
    let x = small_int_floats(&mut rng, n, 4);
    let total: f64 = x.iter().map(|&v| v as f64).sum();
    let cfg = LaunchConfig::new(blocks, 256u32).shared_bytes(256 * 4);
    each_build!(grid_sync_sum, |k, build| {
        let mut partial = vec![f32::NAN; blocks as usize];
        let mut out = [f32::NAN];
        k::launch(cfg, &x, &mut partial, &mut out).unwrap();
        assert_eq!(out[0] as f64, total, "{build} grid_sync_sum");
    });
}

/// The stencil's bounds checks cost it no occupancy: its checked build fits the 32
/// registers per thread that let eight 256-thread blocks share an SM (ptxas's count for
/// sm_90; the unchecked build needs 29). At 46 registers, before strided guards and
/// rolled checked copies, it ran 1.21x slower than nvcc's build on the H100.
#[test]
fn checked_stencil_keeps_full_occupancy() {
    let inspection = match cudajit::inspect::inspect(checked::stencil5::source(), "compute_90") {
        Ok(i) => i,
        Err(e) => {
            skip!("no libnvvm ({e})");
            return;
        }
    };
    let Some(resources) = inspection.resources else {
        skip!("no ptxas to count registers");
        return;
    };
    assert!(
        resources.registers_per_thread <= 32 && resources.spill_store_bytes == 0,
        "{resources:?}"
    );
}

fn random_body(rng: &mut common::Rng) -> Body {
    let mut v3 = |r: f32| Vec3 {
        x: rng.f32_in(-r, r),
        y: rng.f32_in(-r, r),
        z: rng.f32_in(-r, r),
    };
    let (pos, vel) = (v3(10.0), v3(1.0));
    Body {
        pos,
        vel,
        mass: rng.f32_in(0.5, 2.0),
    }
}

/// One n-body step in f64 on the host: each body's (position, velocity).
fn nbody_reference(bodies: &[Body], dt: f64, softening2: f64) -> Vec<[f64; 6]> {
    let f = |v: Vec3| [v.x as f64, v.y as f64, v.z as f64];
    bodies
        .iter()
        .map(|me| {
            let p = f(me.pos);
            let mut acc = [0.0f64; 3];
            for other in bodies {
                let q = f(other.pos);
                let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening2;
                let s = other.mass as f64 / (r2 * r2.sqrt());
                for k in 0..3 {
                    acc[k] += d[k] * s;
                }
            }
            let v = f(me.vel);
            let vel = [v[0] + acc[0] * dt, v[1] + acc[1] * dt, v[2] + acc[2] * dt];
            [
                p[0] + vel[0] * dt,
                p[1] + vel[1] * dt,
                p[2] + vel[2] * dt,
                vel[0],
                vel[1],
                vel[2],
            ]
        })
        .collect()
}

/// The benchmark's n-body step (shared tiles of 256 bodies, a ragged last tile padded
/// with massless bodies) against the f64 all-pairs reference, every body checked.
#[test]
fn tiled_nbody_over_body_structs_matches_the_f64_reference() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench nbody");
    // Never a multiple of the 256-body tile: the padding is exercised.
    let n = if gpu.is_simulator() { 300 } else { 8192 } + 1 + rng.below(254) as usize;
    let bodies: Vec<Body> = (0..n).map(|_| random_body(&mut rng)).collect();
    let dt = rng.f32_in(0.005, 0.02);
    let softening2 = rng.f32_in(0.02, 0.1);
    let want = nbody_reference(&bodies, dt as f64, softening2 as f64);
    let nan = Vec3 {
        x: f32::NAN,
        y: f32::NAN,
        z: f32::NAN,
    };
    let poison = Body {
        pos: nan,
        vel: nan,
        mass: f32::NAN,
    };
    each_build!(nbody, |k, build| {
        let mut next = vec![poison; n];
        launch!(k[n.div_ceil(256), 256](&bodies, &mut next, dt, softening2)).unwrap();
        for (i, (g, w)) in next.iter().zip(&want).enumerate() {
            let got = [g.pos.x, g.pos.y, g.pos.z, g.vel.x, g.vel.y, g.vel.z];
            // f32 sums of n terms with rsqrt (2 ulp): relative to the larger of 1 and
            // the value.
            for (a, b) in got.iter().zip(w) {
                assert!(
                    (*a as f64 - b).abs() <= 2e-4 * b.abs().max(1.0),
                    "{build} nbody: body {i}: {g:?} vs {w:?}"
                );
            }
            assert_eq!(
                g.mass.to_bits(),
                bodies[i].mass.to_bits(),
                "{build} body {i}"
            );
        }
    });
}

/// Black-Scholes (call, put) in plain f64, the CUDA SDK sample's algorithm.
fn black_scholes_reference(s: f64, x: f64, t: f64, rate: f64, volatility: f64) -> (f64, f64) {
    use super::bench_simt::{CND_A1, CND_A2, CND_A3, CND_A4, CND_A5, CND_K, RSQRT_2PI};
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + CND_K * d.abs());
        let poly = k * (CND_A1 + k * (CND_A2 + k * (CND_A3 + k * (CND_A4 + k * CND_A5))));
        let tail = RSQRT_2PI * (-0.5 * d * d).exp() * poly;
        if d > 0.0 {
            1.0 - tail
        } else {
            tail
        }
    };
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (rate + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t);
    let d2 = d1 - volatility * sqrt_t;
    let discount = x * (-rate * t).exp();
    (
        s * cnd(d1) - discount * cnd(d2),
        discount * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)),
    )
}

/// Every (call, put) within `tol` · (price + strike) of the reference: the scale of
/// the two products whose difference each price is.
fn check_options<T: Copy + Into<f64>>(
    what: &str,
    options: &[(f32, f32, f32)],
    call: &[T],
    put: &[T],
    want: &[(f64, f64)],
    tol: f64,
) {
    for (i, &(s, x, _)) in options.iter().enumerate() {
        let scale = tol * (s as f64 + x as f64);
        let (c, p): (f64, f64) = (call[i].into(), put[i].into());
        assert!(
            (c - want[i].0).abs() <= scale && (p - want[i].1).abs() <= scale,
            "{what}: option {i}: call {c}, put {p}, want {:?}",
            want[i]
        );
    }
}

/// The benchmark's ONE generic Black-Scholes kernel instantiated for f64 and f32, and
/// its hand-monomorphised f32 twin: both precisions against the f64 reference, and the
/// hand-written kernel's results bit for bit those of the generic f32 instantiation.
#[test]
fn generic_black_scholes_for_f32_and_f64_equals_the_hand_written_f32_kernel() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bench black_scholes");
    let n = common::size_for(&gpu, 1 << 20, 3000) + rng.below(100) as usize;
    let options: Vec<(f32, f32, f32)> = (0..n)
        .map(|_| {
            (
                rng.f32_in(5.0, 30.0),
                rng.f32_in(1.0, 100.0),
                rng.f32_in(0.25, 10.0),
            )
        })
        .collect();
    let (rate, volatility) = (rng.f32_in(0.01, 0.05), rng.f32_in(0.1, 0.4));
    let want: Vec<(f64, f64)> = options
        .iter()
        .map(|&(s, x, t)| {
            black_scholes_reference(s as f64, x as f64, t as f64, rate as f64, volatility as f64)
        })
        .collect();
    let price: Vec<f32> = options.iter().map(|o| o.0).collect();
    let strike: Vec<f32> = options.iter().map(|o| o.1).collect();
    let years: Vec<f32> = options.iter().map(|o| o.2).collect();
    let wide = |v: &[f32]| v.iter().map(|&a| a as f64).collect::<Vec<f64>>();
    let (price64, strike64, years64) = (wide(&price), wide(&strike), wide(&years));
    let blocks = n.div_ceil(128);
    let mut generic32 = Vec::new();
    each_build!(black_scholes, |k, build| {
        let (mut call, mut put) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        launch!(k[blocks, 128](
            &price64,
            &strike64,
            &years64,
            rate as f64,
            volatility as f64,
            &mut call,
            &mut put
        ))
        .unwrap();
        check_options(&format!("{build} f64"), &options, &call, &put, &want, 1e-10);
        let (mut call, mut put) = (vec![f32::NAN; n], vec![f32::NAN; n]);
        launch!(k[blocks, 128](
            &price,
            &strike,
            &years,
            rate,
            volatility,
            &mut call,
            &mut put
        ))
        .unwrap();
        check_options(&format!("{build} f32"), &options, &call, &put, &want, 1e-5);
        generic32.push((call, put));
    });
    let mut hand32 = Vec::new();
    each_build!(black_scholes_hand_f32, |k, build| {
        let (mut call, mut put) = (vec![f32::NAN; n], vec![f32::NAN; n]);
        launch!(k[blocks, 128](
            &price,
            &strike,
            &years,
            rate,
            volatility,
            &mut call,
            &mut put
        ))
        .unwrap();
        check_options(
            &format!("{build} hand f32"),
            &options,
            &call,
            &put,
            &want,
            1e-5,
        );
        hand32.push((call, put));
    });
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    for (build, (g, h)) in ["checked", "nocheck"]
        .iter()
        .zip(generic32.iter().zip(&hand32))
    {
        assert!(
            bits(&g.0) == bits(&h.0) && bits(&g.1) == bits(&h.1),
            "{build}: the generic f32 instantiation and the hand-written kernel differ"
        );
    }
}

/// "The generic kernels exactly as fast as their hand-monomorphised versions": the
/// generic Black-Scholes kernel's f32 instantiation compiles (libnvvm, compute_90) to
/// the PTX of the same body hand-written for f32, up to the kernels' names; the bench
/// times both.
#[test]
fn generic_black_scholes_f32_compiles_to_the_hand_written_kernels_ptx() {
    let generic = checked::black_scholes::__cudajit_instance::<f32>().0;
    let inspect = |source| cudajit::inspect::inspect(source, "compute_90");
    let (generic, hand) = match (
        inspect(generic),
        inspect(checked::black_scholes_hand_f32::source()),
    ) {
        (Ok(g), Ok(h)) => (g, h),
        (Err(e), _) | (_, Err(e)) => {
            skip!("no libnvvm ({e})");
            return;
        }
    };
    // Up to the kernels' names and their Rust line directives (`.loc`/`.file`: the two
    // bodies sit on different lines of this crate).
    let anonymous = |i: &cudajit::inspect::Inspection| {
        i.ptx
            .replace(&i.kernel, "KERNEL")
            .lines()
            .filter(|l| !l.trim_start().starts_with(".loc") && !l.trim_start().starts_with(".file"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (g, h) = (anonymous(&generic), anonymous(&hand));
    assert!(g.contains(".entry KERNEL"), "{g}");
    if g != h {
        let first = g.lines().zip(h.lines()).position(|(a, b)| a != b);
        panic!(
            "generic ({}) and hand-written ({}) PTX differ from line {first:?}:\n{g}\n----\n{h}",
            generic.kernel, hand.kernel
        );
    }
    assert_eq!(generic.resources, hand.resources);
}
