//! SIMT behaviour on the simulator: barriers, shared memory, atomics, warp operations.

use super::*;

#[test]
fn a_shared_memory_tree_reduction_matches_the_cpu() {
    let src = r#"
#[kernel]
fn reduce(input: &[u32], partial: &mut [u32]) {
    let tile = shared_array::<[u32; 256]>();
    let t = thread_idx().x as usize;
    let i = grid(1);
    tile[t] = if i < input.len() { input[i] } else { 0 };
    sync_threads();
    let mut s = 128;
    while s > 0 {
        if t < s {
            tile[t] = tile[t].wrapping_add(tile[t + s]);
        }
        sync_threads();
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x as usize] = tile[0];
    }
}
"#;
    let m = module(src, "reduce");
    let mut rng = Rng::fresh();
    let n: usize = 5000;
    let input: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let blocks = n.div_ceil(256);
    let (bi, bp) = (buffer_of(&input), buffer_of(&vec![u32::MAX; blocks]));
    let args = [
        slice(ScalarType::U32, &bi, n, false),
        slice(ScalarType::U32, &bp, blocks, true),
    ];
    for seed in 0..3 {
        let options = Options {
            seed,
            ..Options::default()
        };
        run(&m, "reduce", &shape(blocks as u32, 256), &args, &options).expect("runs");
        let partial: Vec<u32> = read_back(&bp, blocks);
        for (b, got) in partial.iter().enumerate() {
            let want = input[b * 256..((b + 1) * 256).min(n)]
                .iter()
                .fold(0u32, |a, &x| a.wrapping_add(x));
            assert_eq!(
                *got, want,
                "block {b}, seed {seed}, input seed {}",
                rng.seed
            );
        }
    }
}

#[test]
fn atomics_barrier_counts_and_warp_operations_match_the_cpu() {
    let src = r#"
#[kernel]
fn k(input: &[u32], hist: &mut [u32], lanes: &mut [i32], counts: &mut [u32]) {
    let i = grid(1);
    let v = input[i];
    atomic_add(hist, (v % 16) as usize, 1);
    let x = v as i32 % 1000;
    let mut sum = x;
    let mut off = 16;
    while off > 0 {
        sum += shfl_down_sync(0xffffffff, sum, off);
        off /= 2;
    }
    let total = shfl_sync(0xffffffff, sum, 0);
    let ballot = ballot_sync(0xffffffff, v % 2 == 0);
    let biggest = warp_reduce_max(x);
    lanes[i] = total + biggest + ballot.count_ones() as i32;
    let n = sync_threads_count(v % 3 == 0);
    if thread_idx().x == 0 {
        counts[block_idx().x as usize] = n;
    }
}
"#;
    let m = module(src, "k");
    let mut rng = Rng::fresh();
    let (blocks, threads) = (4usize, 128usize);
    let n = blocks * threads;
    let input: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let (bi, bh, bl, bc) = (
        buffer_of(&input),
        buffer_of(&[0u32; 16]),
        buffer_of(&vec![i32::MIN; n]),
        buffer_of(&vec![u32::MAX; blocks]),
    );
    let args = [
        slice(ScalarType::U32, &bi, n, false),
        slice(ScalarType::U32, &bh, 16, true),
        slice(ScalarType::I32, &bl, n, true),
        slice(ScalarType::U32, &bc, blocks, true),
    ];
    run(
        &m,
        "k",
        &shape(blocks as u32, threads as u32),
        &args,
        &Options::default(),
    )
    .expect("runs");
    let hist: Vec<u32> = read_back(&bh, 16);
    for (bin, got) in hist.iter().enumerate() {
        assert_eq!(
            *got as usize,
            input.iter().filter(|&&v| v as usize % 16 == bin).count(),
            "bin {bin}"
        );
    }
    let lanes: Vec<i32> = read_back(&bl, n);
    for w in 0..n / 32 {
        let xs: Vec<i32> = input[w * 32..w * 32 + 32]
            .iter()
            .map(|&v| v as i32 % 1000)
            .collect();
        let evens = input[w * 32..w * 32 + 32]
            .iter()
            .filter(|&&v| v % 2 == 0)
            .count() as i32;
        let want = xs.iter().sum::<i32>() + xs.iter().max().copied().unwrap_or(0) + evens;
        for lane in 0..32 {
            assert_eq!(
                lanes[w * 32 + lane],
                want,
                "warp {w} lane {lane}, seed {}",
                rng.seed
            );
        }
    }
    let counts: Vec<u32> = read_back(&bc, blocks);
    for b in 0..blocks {
        let want = input[b * threads..(b + 1) * threads]
            .iter()
            .filter(|&&v| v % 3 == 0)
            .count();
        assert_eq!(counts[b] as usize, want, "block {b}");
    }
}

#[test]
fn grid_sync_orders_the_whole_grid() {
    let src = r#"
#[kernel]
fn k(a: &mut [u32], b: &mut [u32], seed: u32) {
    let i = grid(1);
    let n = grid_size(1);
    a[i] = (i as u32).wrapping_mul(seed);
    grid_sync();
    b[i] = a[(i + 1) % n];
}
"#;
    let m = module(src, "k");
    let seed = Rng::fresh().next() as u32;
    let n = 8 * 64;
    let (ba, bb) = (buffer_of(&vec![0u32; n]), buffer_of(&vec![u32::MAX; n]));
    let args = [
        slice(ScalarType::U32, &ba, n, true),
        slice(ScalarType::U32, &bb, n, true),
        Arg::Scalar {
            ty: ScalarType::U32,
            bits: u64::from(seed),
        },
    ];
    run(&m, "k", &shape(8, 64), &args, &Options::default()).expect("runs");
    let b: Vec<u32> = read_back(&bb, n);
    for (i, got) in b.iter().enumerate() {
        assert_eq!(
            *got,
            (((i + 1) % n) as u32).wrapping_mul(seed),
            "element {i}"
        );
    }
}

#[test]
fn a_barrier_in_a_branch_taken_by_half_the_block_is_divergence() {
    let m = module(
        "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t < 16 { sync_threads(); } a[t] = 1; }",
        "k",
    );
    let b = buffer_of(&[0u32; 64]);
    let err = run(
        &m,
        "k",
        &shape(1, 64),
        &[slice(ScalarType::U32, &b, 64, true)],
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(err, Fault::BarrierDivergence { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("thread (0, 0, 0)") && text.contains("thread (16, 0, 0)"),
        "{text}"
    );
}

#[test]
fn a_shuffle_naming_an_inactive_lane_is_reported() {
    let m = module(
        "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t < 16 { a[t] = shfl_sync(0xffffffff, a[t], 20); } }",
        "k",
    );
    let b = buffer_of(&[0u32; 32]);
    let err = run(
        &m,
        "k",
        &shape(1, 32),
        &[slice(ScalarType::U32, &b, 32, true)],
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Fault::InactiveLane {
                lane: 16,
                mask: 0xffff_ffff,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_reduction_missing_a_barrier_is_a_race_naming_both_threads_and_sites() {
    let src = "#[kernel]\nfn reduce(input: &[u32], out: &mut [u32]) {\n    let tile = shared_array::<[u32; 64]>();\n    let t = thread_idx().x as usize;\n    tile[t] = input[t];\n    sync_threads();\n    let mut s = 32;\n    while s > 0 {\n        if t < s {\n            tile[t] = tile[t].wrapping_add(tile[t + s]);\n        }\n        s /= 2;\n    }\n    if t == 0 { out[0] = tile[0]; }\n}\n";
    let m = module(src, "reduce");
    let (bi, bo) = (buffer_of(&[1u32; 64]), buffer_of(&[0u32; 1]));
    let args = [
        slice(ScalarType::U32, &bi, 64, false),
        slice(ScalarType::U32, &bo, 1, true),
    ];
    let err = run(&m, "reduce", &shape(1, 64), &args, &Options::default()).unwrap_err();
    let Fault::Race {
        location,
        first,
        second,
    } = &err
    else {
        panic!("expected a race, got {err}");
    };
    assert!(location.starts_with("shared `"), "{err}");
    assert_ne!(first.thread, second.thread, "{err}");
    assert_eq!((first.site.line, second.site.line), (10, 10), "{err}");
    assert!(location.contains("`tile`"), "{err}");
    let off = Options {
        detect: false,
        ..Options::default()
    };
    run(&m, "reduce", &shape(1, 64), &args, &off).expect("runs without detection");
}

#[test]
fn a_global_counter_without_an_atomic_races_and_with_one_does_not() {
    let racy = module("#[kernel] fn k(c: &mut [u32]) { c[0] = c[0] + 1; }", "k");
    let fixed = module(
        "#[kernel] fn k(c: &mut [u32]) { atomic_add(c, 0, 1); }",
        "k",
    );
    let b = buffer_of(&[0u32; 1]);
    let args = [slice(ScalarType::U32, &b, 1, true)];
    let err = run(&racy, "k", &shape(2, 64), &args, &Options::default()).unwrap_err();
    assert!(
        matches!(&err, Fault::Race { location, .. } if location.contains("`c`[0]")),
        "{err}"
    );
    b.write(0, &[0; 4]);
    run(&fixed, "k", &shape(2, 64), &args, &Options::default()).expect("no race");
    assert_eq!(read_back::<u32>(&b, 1)[0], 128);
}

#[test]
fn reading_shared_memory_nobody_wrote_is_reported() {
    let m = module(
        "#[kernel] fn k(out: &mut [f32]) { let s = shared_array::<[f32; 32]>(); let t = thread_idx().x as usize; if t > 0 { s[t] = 1.0; } sync_threads(); out[t] = s[(t + 1) % 32]; }",
        "k",
    );
    let b = buffer_of(&[0f32; 32]);
    let err = run(
        &m,
        "k",
        &shape(1, 32),
        &[slice(ScalarType::F32, &b, 32, true)],
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, Fault::UninitialisedRead { location, thread, .. } if location.contains("[0]") && thread.thread == [31, 0, 0]),
        "{err}"
    );
}

#[test]
fn a_whole_co_resident_grid_exchanges_values_every_round() {
    let src = r#"
#[kernel]
fn exchange_rounds(values: &mut [i64], seen: &mut [i64], rounds: u32, salt: i64) {
    let (width, height) = grid_size(2);
    let n = width * height;
    let (x, y) = grid(2);
    let g = y * width + x;
    let block = (block_dim().x * block_dim().y) as usize;
    for r in 0..rounds {
        values[g] = salt + g as i64 * 1000 + r as i64;
        grid_sync();
        seen[r as usize * n + g] = values[(g + block) % n];
        grid_sync();
    }
}
"#;
    let m = module(src, "exchange_rounds");
    let (gx, gy, bx, by, rounds) = (264u32, 2u32, 32u32, 4u32, 5usize);
    let n = (gx * gy * bx * by) as usize;
    let salt = (Rng::fresh().next() >> 24) as i64;
    let (bv, bs) = (
        buffer_of(&vec![0i64; n]),
        buffer_of(&vec![i64::MIN; n * rounds]),
    );
    let args = [
        slice(ScalarType::I64, &bv, n, true),
        slice(ScalarType::I64, &bs, n * rounds, true),
        Arg::Scalar {
            ty: ScalarType::U32,
            bits: rounds as u64,
        },
        Arg::Scalar {
            ty: ScalarType::I64,
            bits: salt as u64,
        },
    ];
    let shape = LaunchShape {
        grid: [gx, gy, 1],
        block: [bx, by, 1],
        dynamic_shared_bytes: 0,
    };
    run(&m, "exchange_rounds", &shape, &args, &Options::default()).expect("runs");
    let seen: Vec<i64> = read_back(&bs, n * rounds);
    let width = (gx * bx) as usize;
    let block = (bx * by) as usize;
    for r in 0..rounds {
        for g in 0..n {
            // `g` is y * width + x; the thread at global (x, y) wrote `values[g]`.
            let from = (g + block) % n;
            assert_eq!(
                seen[r * n + g],
                salt + from as i64 * 1000 + r as i64,
                "round {r} thread {g} (width {width})"
            );
        }
    }
}
