//! The runtime's stream features on both backends: launches on two streams that share a
//! device array are ordered (a write on one, then a read on the other, sees the write),
//! CUDA graph capture and replay, pinned host buffers with asynchronous copies, and an
//! array dropped while a kernel using it is still queued. On the simulator launches
//! complete before they return, so ordering holds by construction there; on a GPU these
//! exercise the per-array event tracking of `kernel-host/src/memory/` (`allocation.rs`, `backing.rs`).

use cudajit::prelude::*;

use super::common;

/// `a[i] = f(i, seed)` after `rounds` dependent steps: slow enough on a GPU that a read
/// on another stream that did not wait would see old values.
#[kernel]
fn slow_fill(a: &mut [u32], seed: u32, rounds: u32) {
    let i = grid(1);
    if i < a.len() {
        let mut x = i as u32 ^ seed;
        for _ in 0..rounds {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        a[i] = x;
    }
}

/// `slow_fill`'s value of element `i`. The step is affine, so `rounds` steps are one
/// affine map `x -> mul * x + add`, found once per call of `lcg_steps`.
fn slow_fill_reference(i: usize, seed: u32, rounds: u32) -> u32 {
    let (mul, add) = lcg_steps(rounds);
    mul.wrapping_mul(i as u32 ^ seed).wrapping_add(add)
}

/// `(mul, add)` of `rounds` steps of `x -> 1664525 x + 1013904223` (mod 2^32).
fn lcg_steps(rounds: u32) -> (u32, u32) {
    (0..rounds).fold((1u32, 0u32), |(mul, add), _| {
        (
            mul.wrapping_mul(1_664_525),
            add.wrapping_mul(1_664_525).wrapping_add(1_013_904_223),
        )
    })
}

#[kernel]
fn plus_one_into(a: &[u32], out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = a[i].wrapping_add(1);
    }
}

#[kernel]
fn times_three_plus(a: &mut [u32], k: u32) {
    let i = grid(1);
    if i < a.len() {
        a[i] = a[i].wrapping_mul(3).wrapping_add(k);
    }
}

const BLOCK: usize = 256;

fn blocks(n: usize) -> usize {
    n.div_ceil(BLOCK)
}

/// A write on stream `s1`, then a read of the same array on stream `s2`, then a write
/// on `s1` again after the read (write-after-read): each sees the other's effect.
#[test]
fn a_write_and_a_read_on_two_streams_are_ordered() {
    let device = require_gpu!();
    let (n, rounds, repeats) = if device.is_simulator() {
        (300, 4, 3)
    } else {
        (1 << 20, 2000, 20)
    };
    let s1 = device.new_stream().unwrap();
    let s2 = device.new_stream().unwrap();
    let mut rng = common::Rng::fresh("runtime");
    for _ in 0..repeats {
        let seed = rng.next_u64() as u32;
        let mut a = device.zeros::<u32>(n).unwrap();
        let mut out = DeviceArray::from_slice_on(&device, &vec![0xDEAD_BEEFu32; n]).unwrap();
        launch!(slow_fill[blocks(n), BLOCK, &s1](&mut a, seed, rounds)).unwrap();
        launch!(plus_one_into[blocks(n), BLOCK, &s2](&a, &mut out)).unwrap();
        // Write-after-read: this must not overwrite `a` before `s2` read it.
        launch!(times_three_plus[blocks(n), BLOCK, &s1](&mut a, 5)).unwrap();
        s1.synchronize().unwrap();
        s2.synchronize().unwrap();
        let got = out.to_host().unwrap();
        let got_a = a.to_host().unwrap();
        let (mul, add) = lcg_steps(rounds);
        for i in 0..n {
            let filled = mul.wrapping_mul(i as u32 ^ seed).wrapping_add(add);
            assert_eq!(
                got[i],
                filled.wrapping_add(1),
                "element {i}: the read on stream 2 did not see the write on stream 1"
            );
            assert_eq!(
                got_a[i],
                filled.wrapping_mul(3).wrapping_add(5),
                "element {i}: the second write on stream 1 is wrong"
            );
        }
    }
}

/// Launches taking turns between two streams, each rewriting the array the one before
/// wrote on the other stream (write after write: each waits for the other stream's
/// event), after a slow fill: each step sees the step before. On a GPU these launches
/// stay on the fast path (`launch::fast` orders arrays used last on another stream).
#[test]
fn launches_alternating_between_streams_see_each_others_writes() {
    let device = require_gpu!();
    let (n, rounds, steps) = if device.is_simulator() {
        (300, 4, 8)
    } else {
        (1 << 20, 2000, 40)
    };
    let s1 = device.new_stream().unwrap();
    let s2 = device.new_stream().unwrap();
    let mut rng = common::Rng::fresh("alternating");
    let seed = rng.next_u64() as u32;
    let ks: Vec<u32> = (0..steps).map(|_| rng.next_u64() as u32).collect();
    let mut a = DeviceArray::from_slice_on(&device, &vec![0xDEAD_BEEFu32; n]).unwrap();
    launch!(slow_fill[blocks(n), BLOCK, &s1](&mut a, seed, rounds)).unwrap();
    let fast_before = kernel_host::profile::fast_path_launches();
    for (step, &k) in ks.iter().enumerate() {
        let on = if step % 2 == 0 { &s2 } else { &s1 };
        launch!(times_three_plus[blocks(n), BLOCK, on](&mut a, k)).unwrap();
    }
    let fast = kernel_host::profile::fast_path_launches() - fast_before;
    s1.synchronize().unwrap();
    s2.synchronize().unwrap();
    let got = a.to_host().unwrap();
    let (mul, add) = lcg_steps(rounds);
    for (i, &got) in got.iter().enumerate() {
        let filled = mul.wrapping_mul(i as u32 ^ seed).wrapping_add(add);
        let want = ks
            .iter()
            .fold(filled, |x, &k| x.wrapping_mul(3).wrapping_add(k));
        assert_eq!(got, want, "element {i}: a step did not see the one before");
    }
    if !device.is_simulator() {
        // The first launch learns the memo; every later one switches streams.
        assert!(
            fast + 1 >= steps as u64,
            "only {fast} of {steps} alternating launches took the fast path"
        );
    }
}

/// A captured sequence runs only when the graph is launched, each replay applies it
/// once more, and the graph keeps its arrays' memory: the capture's errors are `Err`s.
#[test]
fn graph_capture_records_and_replays_launches() {
    let device = require_gpu!();
    let n = if device.is_simulator() { 200 } else { 1 << 16 };
    let stream = device.new_stream().unwrap();
    let mut rng = common::Rng::fresh("runtime");
    let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let mut a = DeviceArray::from_slice_on(&device, &input).unwrap();
    let mut out = DeviceArray::from_slice_on(&device, &vec![7u32; n]).unwrap();
    let graph = stream
        .capture(|s| {
            launch!(times_three_plus[blocks(n), BLOCK, s](&mut a, 1))?;
            launch!(plus_one_into[blocks(n), BLOCK, s](&a, &mut out))?;
            Ok(())
        })
        .unwrap();
    assert_eq!(graph.len(), 2, "{graph:?}");
    stream.synchronize().unwrap();
    assert_eq!(a.to_host().unwrap(), input, "the capture ran a launch");
    assert_eq!(
        out.to_host().unwrap(),
        vec![7u32; n],
        "the capture ran a launch"
    );

    let mut expected = input.clone();
    for replay in 1..=3 {
        graph.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        for x in &mut expected {
            *x = x.wrapping_mul(3).wrapping_add(1);
        }
        let plus: Vec<u32> = expected.iter().map(|x| x.wrapping_add(1)).collect();
        assert_eq!(a.to_host().unwrap(), expected, "replay {replay}");
        assert_eq!(out.to_host().unwrap(), plus, "replay {replay}");
    }

    // The graph keeps the memory of arrays dropped after the capture.
    drop(out);
    graph.launch(&stream).unwrap();
    stream.synchronize().unwrap();
    for x in &mut expected {
        *x = x.wrapping_mul(3).wrapping_add(1);
    }
    assert_eq!(a.to_host().unwrap(), expected, "replay after a drop");
}

/// `dst[i]` = `rounds` steps of `slow_fill`'s map from `src[i]`.
#[kernel]
fn lcg_into(src: &[u32], dst: &mut [u32], rounds: u32) {
    let i = grid(1);
    if i < dst.len() {
        let mut x = src[i];
        for _ in 0..rounds {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        dst[i] = x;
    }
}

/// On sm_90 consecutive kernel nodes of a graph overlap (programmatic edges; each
/// kernel's first instruction waits for the previous kernel's results): a chain of
/// steps that each read what the step before wrote still computes what stream order
/// computes, on every replay.
#[test]
fn overlapped_graph_nodes_see_the_previous_nodes_writes() {
    let device = require_gpu!();
    let sim = device.is_simulator();
    let n = if sim { 200 } else { 1 << 16 };
    let (steps, rounds) = if sim { (4, 3) } else { (40, 200) };
    let stream = device.new_stream().unwrap();
    let mut rng = common::Rng::fresh("runtime-overlap");
    let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let mut a = DeviceArray::from_slice_on(&device, &input).unwrap();
    let mut b = DeviceArray::from_slice_on(&device, &vec![0u32; n]).unwrap();
    let graph = stream
        .capture(|s| {
            for _ in 0..steps / 2 {
                launch!(lcg_into[blocks(n), BLOCK, s](&a, &mut b, rounds))?;
                launch!(lcg_into[blocks(n), BLOCK, s](&b, &mut a, rounds))?;
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(graph.len(), steps, "{graph:?}");
    let hopper = !sim && device.compute_capability().0 >= 9;
    let overlapped = if hopper { steps - 1 } else { 0 };
    assert_eq!(graph.overlapped_nodes(), overlapped, "{graph:?}");
    let (mul, add) = lcg_steps(rounds);
    let mut expected = input;
    for replay in 1..=3 {
        graph.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        for x in &mut expected {
            for _ in 0..steps {
                *x = mul.wrapping_mul(*x).wrapping_add(add);
            }
        }
        assert_eq!(a.to_host().unwrap(), expected, "replay {replay}");
    }
}

#[test]
fn graph_capture_errors_are_reported() {
    let device = require_gpu!();
    let mut a = device.zeros::<u32>(64).unwrap();
    // The default stream can be captured from (the graph is recorded on a private
    // stream): nothing runs until the replay.
    let default = device.default_stream();
    let graph = default
        .capture(|s| launch!(times_three_plus[1, 64, s](&mut a, 1)))
        .unwrap();
    assert_eq!(
        a.to_host().unwrap(),
        vec![0u32; 64],
        "the capture ran a launch"
    );
    graph.launch(&default).unwrap();
    default.synchronize().unwrap();
    assert_eq!(a.to_host().unwrap(), vec![1u32; 64]);
    drop(graph);
    a.copy_from_host(&[0u32; 64]).unwrap();
    // Host slices are refused inside a capture.
    let stream = device.new_stream().unwrap();
    let mut host = vec![1u32; 64];
    let err = stream
        .capture(|s| launch!(times_three_plus[1, 64, s](&mut host, 1)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("host slice cannot be passed"), "{err}");
    assert_eq!(host, vec![1u32; 64], "a refused launch ran");
    // So are asynchronous copies (they are not launches the graph could own).
    let pinned = PinnedBuffer::<u32>::zeros_on(&device, 64).unwrap();
    let err = stream
        .capture(|s| a.copy_from_pinned_async(&pinned, s).map(drop))
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot be part of a graph capture"), "{err}");
    // The body's own error comes back; the stream works afterwards.
    let err = stream
        .capture(|s| {
            launch!(times_three_plus[1, 64, s](&mut a, 1))?;
            launch!(times_three_plus[0, 64, s](&mut a, 1))
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("rejected"), "{err}");
    launch!(times_three_plus[1, 64, &stream](&mut a, 2)).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(a.to_host().unwrap(), vec![2u32; 64]);
}

/// Random data through a pinned buffer to the device, a kernel, and back into another
/// pinned buffer, with the copies on a stream.
#[test]
fn pinned_buffers_copy_asynchronously() {
    let device = require_gpu!();
    let n = if device.is_simulator() { 500 } else { 1 << 20 };
    let stream = device.new_stream().unwrap();
    let mut rng = common::Rng::fresh("runtime");
    let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let pinned_in = PinnedBuffer::from_slice_on(&device, &input).unwrap();
    let mut pinned_out = PinnedBuffer::from_slice_on(&device, &vec![0xDEAD_BEEFu32; n]).unwrap();
    let mut a = device.zeros::<u32>(n).unwrap();
    a.copy_from_pinned_async(&pinned_in, &stream)
        .unwrap()
        .wait()
        .unwrap();
    launch!(times_three_plus[blocks(n), BLOCK, &stream](&mut a, 9)).unwrap();
    let guard = a.copy_to_pinned_async(&mut pinned_out, &stream).unwrap();
    guard.wait().unwrap();
    stream.synchronize().unwrap();
    let expected: Vec<u32> = input
        .iter()
        .map(|x| x.wrapping_mul(3).wrapping_add(9))
        .collect();
    assert_eq!(&pinned_out[..], &expected[..]);
    // A leaked guard: reading the buffer still waits for the copy.
    drop(a.copy_from_pinned_async(&pinned_in, &stream).unwrap());
    let guard = a.copy_to_pinned_async(&mut pinned_out, &stream).unwrap();
    std::mem::forget(guard);
    assert_eq!(&pinned_out[..], &input[..]);
    // Lengths must agree.
    let short = PinnedBuffer::<u32>::zeros_on(&device, n - 1).unwrap();
    let err = a
        .copy_from_pinned_async(&short, &stream)
        .err()
        .expect("a shorter buffer is refused")
        .to_string();
    assert!(err.contains(&format!("holds {n} elements")), "{err}");
}

/// Dropping arrays while kernels that use them are still queued on a stream: the
/// memory is freed after them (stream-ordered), and new arrays get correct results.
#[test]
fn arrays_dropped_while_in_use_are_freed_after_their_kernels() {
    let device = require_gpu!();
    let (n, rounds, repeats) = if device.is_simulator() {
        (100, 2, 3)
    } else {
        (1 << 20, 4000, 50)
    };
    let stream = device.new_stream().unwrap();
    for r in 0..repeats {
        let mut a = device.zeros::<u32>(n).unwrap();
        launch!(slow_fill[blocks(n), BLOCK, &stream](&mut a, r, rounds)).unwrap();
        drop(a);
        let mut b = device.zeros::<u32>(n).unwrap();
        launch!(slow_fill[blocks(n), BLOCK, &stream](&mut b, r + 1, 1)).unwrap();
        stream.synchronize().unwrap();
        let got = b.to_host().unwrap();
        for (i, &x) in got.iter().enumerate().step_by(997) {
            assert_eq!(
                x,
                slow_fill_reference(i, r + 1, 1),
                "round {r}, element {i}"
            );
        }
    }
}

/// This file's kernels go through libnvvm (and ptxas where found) for sm_90, so the
/// GPU run cannot fail on their compilation (needs libnvvm, not a GPU).
#[test]
fn runtime_kernels_compile_for_sm_90() {
    for source in [
        slow_fill::source(),
        plus_one_into::source(),
        times_three_plus::source(),
    ] {
        match cudajit::inspect::inspect(source, "compute_90") {
            Ok(found) => assert!(found.ptx.contains(".entry"), "{}", found.ptx),
            Err(e @ cudajit::Error::Nvvm { .. }) if e.to_string().contains("not found") => {
                skip!("libnvvm not available ({e})");
                return;
            }
            Err(e) => panic!("{}: {e}", source.name),
        }
    }
}

/// Scalars of every size, each at an offset its predecessors leave unaligned for a
/// larger one (`b` at 2, `flag` at 4, `c` at 8, `d` at 16 of the scalars' bytes): what
/// the launch's fast path packs into one parameter buffer (`launch::fast`).
#[kernel]
fn mixed_scalars(x: &[f32], a: u8, b: i16, flag: bool, c: i32, d: f64, e: u8, out: &mut [f64]) {
    let i = grid(1);
    if i < out.len() {
        let signed = if flag { c as f64 } else { -(c as f64) };
        out[i] = x[i] as f64 * d + a as f64 + b as f64 * 2.0 + signed + e as f64 * 3.0;
    }
}

#[kernel]
fn poison_f64(out: &mut [f64]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = -1.0e300;
    }
}

/// The same launch again and again with fresh scalars, on a created stream and on the
/// default one, each result against plain Rust: on a GPU most of these launches take
/// the fast path (the memo knows them, their arrays stay on the stream), so the packed
/// parameters are checked for every scalar size.
#[test]
fn repeated_launches_pass_scalars_of_every_size() {
    let device = require_gpu!();
    let (n, rounds) = (1000, 12);
    let mut rng = common::Rng::fresh("mixed_scalars");
    let x_host = rng.vec_f32(n, -4.0, 4.0);
    let x = DeviceArray::from_slice_on(&device, &x_host).unwrap();
    let mut out = device.zeros::<f64>(n).unwrap();
    let created = device.new_stream().unwrap();
    let fast_before = kernel_host::profile::fast_path_launches();
    for on_created in [true, false] {
        for _ in 0..rounds {
            let a = rng.below(256) as u8;
            let b = rng.below(1 << 16) as u16 as i16;
            let flag = rng.below(2) == 1;
            let c = rng.next_u64() as i32;
            let d = rng.f64_in(-1e3, 1e3);
            let e = rng.below(256) as u8;
            let launched = if on_created {
                launch!(poison_f64[blocks(n), BLOCK, &created](&mut out)).unwrap();
                launch!(mixed_scalars[blocks(n), BLOCK, &created](&x, a, b, flag, c, d, e, &mut out))
            } else {
                launch!(poison_f64[blocks(n), BLOCK](&mut out)).unwrap();
                launch!(mixed_scalars[blocks(n), BLOCK](&x, a, b, flag, c, d, e, &mut out))
            };
            launched.unwrap();
            let got = out.to_host().unwrap();
            for (i, (&got, &xi)) in got.iter().zip(&x_host).enumerate() {
                let signed = if flag { c as f64 } else { -(c as f64) };
                let want = xi as f64 * d + a as f64 + b as f64 * 2.0 + signed + e as f64 * 3.0;
                assert!(
                    (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "element {i}: {got} against {want} (a {a}, b {b}, flag {flag}, c {c}, d {d}, e {e})"
                );
            }
        }
    }
    created.synchronize().unwrap();
    let fast = kernel_host::profile::fast_path_launches() - fast_before;
    if !device.is_simulator() {
        // The first launches of each kernel and stream learn the memo (and settle the
        // launch-proven copy); the rest must have come the fast way.
        assert!(
            fast >= rounds as u64,
            "only {fast} of {} launches took the fast path",
            4 * rounds
        );
    }
}
