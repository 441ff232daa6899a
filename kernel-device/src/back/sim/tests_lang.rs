//! Language features on the simulator against plain-Rust references: device functions
//! with array and slice parameters, sub-slices and `split_at`, dynamic shared memory,
//! constant tables, tuples, `loop` with `break` values, 2-D launches, math.

use super::*;

const SRC: &str = r#"
const TAPS: [f32; 4] = [0.5, -1.25, 2.0, 0.125];

#[device]
fn dot(w: [f32; 4], xs: &[f32]) -> f32 {
    let mut acc = 0.0f32;
    for k in 0..4 {
        acc = w[k].mul_add(xs[k], acc);
    }
    acc
}

#[device]
fn first_above(xs: &[f32], limit: f32) -> (usize, bool) {
    let mut k = 0;
    let found = loop {
        if k == xs.len() { break false; }
        if xs[k] > limit { break true; }
        k += 1;
    };
    (k, found)
}

#[kernel]
fn k(input: &[f32], out: &mut [f32], index: &mut [u32]) {
    let (x, y) = grid(2);
    let width = grid_size(1);
    let i = y * width + x;
    let mut smem = dynamic_shared();
    let scratch = smem.take::<f32>(block_dim().x as usize * block_dim().y as usize);
    let t = (thread_idx().y * block_dim().x + thread_idx().x) as usize;
    scratch[t] = input[i % input.len()];
    sync_threads();
    let window = &input[(i % (input.len() - 8))..];
    let (left, right) = window.split_at(4);
    let taps = [TAPS[0], TAPS[1], TAPS[2], TAPS[3]];
    let (k, found) = first_above(&right[..4], 10.0);
    out[i] = dot(taps, left) + scratch[(t + 1) % 64].sqrt().floor() + (i as f32).sin().abs() * 0.0 + if found { k as f32 } else { -1.0 };
    index[i] = (input[i % input.len()] as i32).clamp(-5, 5) as u32 ^ (i as u32).rotate_left(3) ^ (i as u32).leading_zeros();
}
"#;

#[test]
fn device_functions_slices_dynamic_shared_and_constants_match_the_cpu() {
    let m = module(SRC, "k");
    let mut rng = Rng::fresh();
    let n = 500;
    let input: Vec<f32> = (0..n).map(|_| rng.f32().abs() / 50.0).collect();
    let (gx, gy, bx, by) = (2u32, 3u32, 16u32, 4u32);
    let total = (gx * bx * gy * by) as usize;
    let (bi, bo, bx2) = (
        buffer_of(&input),
        buffer_of(&vec![f32::NAN; total]),
        buffer_of(&vec![0u32; total]),
    );
    let args = [
        slice(ScalarType::F32, &bi, n, false),
        slice(ScalarType::F32, &bo, total, true),
        slice(ScalarType::U32, &bx2, total, true),
    ];
    let shape = LaunchShape {
        grid: [gx, gy, 1],
        block: [bx, by, 1],
        dynamic_shared_bytes: bx * by * 4,
    };
    run(&m, "k", &shape, &args, &Options::default()).expect("runs");
    let out: Vec<f32> = read_back(&bo, total);
    let index: Vec<u32> = read_back(&bx2, total);
    let taps = [0.5f32, -1.25, 2.0, 0.125];
    let width = (gx * bx) as usize;
    for by_ in 0..gy {
        for bx_ in 0..gx {
            for ty in 0..by {
                for tx in 0..bx {
                    let (x, y) = ((bx_ * bx + tx) as usize, (by_ * by + ty) as usize);
                    let i = y * width + x;
                    let t = (ty * bx + tx) as usize;
                    // scratch[(t + 1) % 64] belongs to the same block.
                    let u = (t + 1) % 64;
                    let (ux, uy) = (u % bx as usize, u / bx as usize);
                    let j =
                        (by_ as usize * by as usize + uy) * width + bx_ as usize * bx as usize + ux;
                    let scratch = input[j % n];
                    let window = &input[i % (n - 8)..];
                    let (left, right) = window.split_at(4);
                    let mut acc = 0.0f32;
                    for k in 0..4 {
                        acc = taps[k].mul_add(left[k], acc);
                    }
                    let pos = right[..4].iter().position(|&v| v > 10.0);
                    let want = acc
                        + scratch.sqrt().floor()
                        + (i as f32).sin().abs() * 0.0
                        + pos.map_or(-1.0, |k| k as f32);
                    assert_eq!(
                        out[i].to_bits(),
                        want.to_bits(),
                        "element {i}: {} vs {want}, seed {}",
                        out[i],
                        rng.seed
                    );
                    let v = input[i % n];
                    let want_ix = (v as i32).clamp(-5, 5) as u32
                        ^ (i as u32).rotate_left(3)
                        ^ (i as u32).leading_zeros();
                    assert_eq!(index[i], want_ix, "index {i}");
                }
            }
        }
    }
}

/// A thread that returns before a barrier counts as arrived (PTX `exit`), as on the
/// GPU; a live lane that skips the barrier its warp-mates wait at (`bar.sync` is
/// aligned: a warp's threads must execute the same one) is divergence.
#[test]
fn returning_before_a_barrier_counts_as_arrived_but_skipping_it_is_divergence() {
    let m = module(
        "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t == 40 { return; } sync_threads(); a[t] = 1; }",
        "k",
    );
    let b = buffer_of(&[0u32; 64]);
    run(
        &m,
        "k",
        &shape(1, 64),
        &[slice(ScalarType::U32, &b, 64, true)],
        &Options::default(),
    )
    .unwrap();
    let out: Vec<u32> = read_back(&b, 64);
    assert!((0..64).all(|t| out[t] == u32::from(t != 40)), "{out:?}");

    let m = module(
        "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t != 40 { sync_threads(); } a[t] = 1; }",
        "k",
    );
    let err = run(
        &m,
        "k",
        &shape(1, 64),
        &[slice(ScalarType::U32, &b, 64, true)],
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, Fault::BarrierDivergence { other, elsewhere, .. } if other.thread == [40, 0, 0] && elsewhere.starts_with("did not reach it")),
        "{err}"
    );
}

#[test]
fn a_take_past_the_dynamic_shared_memory_panics_with_the_ir_message() {
    let m = module("#[kernel] fn k(a: &mut [f32]) { let mut s = dynamic_shared(); let v = s.take::<f32>(64); v[0] = 1.0; a[0] = v[0]; }", "k");
    let b = buffer_of(&[0f32; 1]);
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared_bytes: 16,
    };
    let err = run(
        &m,
        "k",
        &shape,
        &[slice(ScalarType::F32, &b, 1, true)],
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, Fault::Panic { message, .. } if message.starts_with("dynamic shared memory exhausted: `take` needs 256 bytes but the launch has 16 bytes")),
        "{err}"
    );
}
