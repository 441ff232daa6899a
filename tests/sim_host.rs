//! The executor seam on the simulator, through `launch!`: each test makes a simulated
//! device of its own (`Device::simulator_with`) and launches on its stream, so it runs
//! on the simulator whatever the default device is (a GPU, or none). Host slices and
//! device arrays, panics as the GPU's `KernelPanic` with linear indices, faults of
//! launches on device arrays deferred to the next synchronisation, arrays of another
//! device refused, events, and the cooperative limits of an sm_90 device.

use cudajit::prelude::*;
use cudajit::{Backend, Error, SimOptions};

#[path = "../examples/common/mod.rs"]
mod common;

fn simulator() -> Device {
    let device = Device::simulator_with(SimOptions::default());
    assert_eq!(device.backend(), Backend::Simulator);
    device
}

#[kernel]
fn scaled_sum(a: &[f32], b: &[f32], scale: f32, c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] * scale + b[i];
    }
}

#[test]
fn host_slices_and_device_arrays_give_the_cpus_results() {
    let device = simulator();
    let stream = device.new_stream().unwrap();
    let mut rng = common::Rng::fresh("scaled_sum");
    let n = 5000 + rng.below(1000) as usize;
    let (a, b) = (rng.vec_f32(n, -8.0, 8.0), rng.vec_f32(n, -8.0, 8.0));
    let scale = rng.f32_in(-2.0, 2.0);
    // One multiply and one add in f32, rounded each (the simulator does not fuse).
    let want: Vec<f64> = (0..n).map(|i| (a[i] * scale + b[i]) as f64).collect();

    let mut c = vec![f32::NAN; n];
    launch!(scaled_sum[n.div_ceil(128), 128, stream](&a, &b, scale, &mut c)).unwrap();
    common::compare("host slices", &c, &want, 0.0, 0.0).unwrap();

    let (da, db) = (device.to_device(&a).unwrap(), device.to_device(&b).unwrap());
    let mut dc = device.to_device(&vec![f32::NAN; n]).unwrap();
    launch!(scaled_sum[n.div_ceil(256), 256, stream](&da, &db, scale, &mut dc)).unwrap();
    // The output of one launch is the input of the next, where it lies.
    let mut twice = device.zeros::<f32>(n).unwrap();
    launch!(scaled_sum[n.div_ceil(64), 64, stream](&dc, &dc, 1.0, &mut twice)).unwrap();
    stream.synchronize().unwrap();
    common::compare("device arrays", &dc.to_host().unwrap(), &want, 0.0, 0.0).unwrap();
    let doubled: Vec<f64> = want.iter().map(|w| 2.0 * w).collect();
    common::compare("chained", &twice.to_host().unwrap(), &doubled, 0.0, 0.0).unwrap();
}

/// Writes one element per thread of a 3-D grid of 3-D blocks, by its linear index.
#[kernel]
fn fill_3d(out: &mut [u32]) {
    let block =
        block_idx().x + block_idx().y * grid_dim().x + block_idx().z * grid_dim().x * grid_dim().y;
    let thread = thread_idx().x
        + thread_idx().y * block_dim().x
        + thread_idx().z * block_dim().x * block_dim().y;
    let per_block = block_dim().x * block_dim().y * block_dim().z;
    let at = (block * per_block + thread) as usize;
    out[at] = at as u32 * 3 + 1; // panic site: fill_3d
}

#[test]
fn a_panic_is_the_gpus_kernel_panic_with_linear_indices() {
    let device = simulator();
    let stream = device.default_stream();
    let (grid, block) = ((3u32, 2u32, 2u32), (4u32, 2u32, 2u32));
    let threads = (3 * 2 * 2 * 4 * 2 * 2) as usize;
    let mut out = vec![u32::MAX; threads];
    launch!(fill_3d[grid, block, stream](&mut out)).unwrap();
    assert!((0..threads).all(|i| out[i] == i as u32 * 3 + 1));

    // One element short: the thread at linear index `threads - 1` (the last thread of
    // the last block) indexes past the end, and only it.
    let mut short = vec![u32::MAX; threads - 1];
    let err = launch!(fill_3d[grid, block, stream](&mut short)).unwrap_err();
    let line = include_str!("sim_host.rs")
        .lines()
        .position(|l| l.contains(concat!("panic site", ": fill_3d")))
        .unwrap()
        + 1;
    match &err {
        Error::KernelPanic {
            kernel,
            file,
            line: at,
            message,
            block,
            thread,
            ..
        } => {
            assert_eq!(kernel, "fill_3d");
            assert_eq!(file, "tests/sim_host.rs");
            assert_eq!(*at as usize, line);
            assert_eq!(
                message,
                &format!(
                    "index out of bounds: the len is {} but the index is {}",
                    threads - 1,
                    threads - 1
                )
            );
            assert_eq!((*block, *thread), (11, 15), "{err}");
        }
        other => panic!("expected KernelPanic, got {other}"),
    }
    // The device is usable. (The simulator ends a launch at its first panic, so unlike
    // on a GPU the other threads need not have finished their work.)
    device.synchronize().unwrap();
    launch!(fill_3d[grid, block, stream](&mut out)).unwrap();
    assert!((0..threads).all(|i| out[i] == i as u32 * 3 + 1));
}

#[test]
fn a_fault_on_device_arrays_surfaces_at_the_next_synchronisation() {
    let device = simulator();
    let stream = device.new_stream().unwrap();
    let threads = 2 * 8 * 2 * 4;
    let mut short = device.zeros::<u32>(threads - 5).unwrap();
    // Asynchronous on a GPU: the launch itself succeeds.
    launch!(fill_3d[(2, 1, 1), (8, 2, 4), stream](&mut short)).unwrap();
    let err = stream.synchronize().unwrap_err();
    assert!(
        matches!(err, Error::KernelPanic { ref kernel, .. } if kernel == "fill_3d"),
        "{err}"
    );
    // Reported once.
    stream.synchronize().unwrap();
    short.to_host().unwrap();
}

#[test]
fn arrays_of_another_device_are_refused_before_anything_runs() {
    let (one, other) = (simulator(), simulator());
    let a = one.to_device(&[1.0f32, 2.0]).unwrap();
    let mut c = one.to_device(&[f32::NAN; 2]).unwrap();
    let stream = other.default_stream();
    let err = launch!(scaled_sum[1, 32, stream](&a, &a, 1.0, &mut c)).unwrap_err();
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("argument 1 is a device array on the CPU simulator"),
        "{err}"
    );
    assert!(c.to_host().unwrap().iter().all(|v| v.is_nan()));
}

#[test]
fn launch_limits_are_an_sm90_devices() {
    let device = simulator();
    let stream = device.default_stream();
    let (a, b) = (vec![1.0f32; 64], vec![2.0f32; 64]);
    let mut c = vec![0.0f32; 64];
    let err = launch!(scaled_sum[1, 2048, stream](&a, &b, 1.0, &mut c)).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)"),
        "{err}"
    );
    let err = launch!(scaled_sum[1, 64, stream, 232_449](&a, &b, 1.0, &mut c)).unwrap_err();
    assert!(err.to_string().contains("232448 bytes per block"), "{err}");
    assert!(c.iter().all(|&v| v == 0.0));
}

#[kernel]
fn grid_total(x: &[i64], partials: &mut [i64], total: &mut [i64]) {
    let g = grid(1);
    let mut sum = 0i64;
    for i in (g..x.len()).step_by(grid_size(1)) {
        sum += x[i];
    }
    partials[g] = sum;
    grid_sync();
    if g == 0 {
        let mut all = 0i64;
        for p in 0..partials.len() {
            all += partials[p];
        }
        total[0] = all;
    }
}

#[test]
fn cooperative_grids_are_sized_as_on_an_sm90_device() {
    let device = simulator();
    let stream = device.default_stream();
    let config = |block: u32| LaunchConfig::new(1, block).stream(&stream);
    let sms = device.multiprocessor_count();
    // 2048 threads and 32 blocks per multiprocessor.
    assert_eq!(
        grid_total::max_cooperative_grid_blocks_for(config(256)).unwrap(),
        8 * sms
    );
    assert_eq!(
        grid_total::max_cooperative_grid_blocks_for(config(32)).unwrap(),
        32 * sms
    );
    let max = grid_total::max_cooperative_grid_blocks_for(config(1024)).unwrap();
    assert_eq!(max, 2 * sms);
    let x = vec![1i64; 100];
    let mut partials = vec![0i64; ((max + 1) * 1024) as usize];
    let mut total = [i64::MIN];
    let err =
        launch!(grid_total[max + 1, 1024, stream](&x, &mut partials, &mut total)).unwrap_err();
    assert!(
        err.to_string().contains(&format!("at most {max} blocks")),
        "{err}"
    );
    assert_eq!(total[0], i64::MIN, "nothing ran");

    let mut rng = common::Rng::fresh("grid_total");
    let x: Vec<i64> = (0..20_000)
        .map(|_| rng.below(1 << 30) as i64 - (1 << 29))
        .collect();
    let (blocks, block) = (6u32, 128u32);
    let mut partials = vec![i64::MIN; (blocks * block) as usize];
    launch!(grid_total[blocks, block, stream](&x, &mut partials, &mut total)).unwrap();
    assert_eq!(total[0], x.iter().sum::<i64>());
}

#[test]
fn events_time_simulated_launches() {
    let device = simulator();
    let stream = device.new_stream().unwrap();
    let n = 1 << 16;
    let (a, b) = (
        device.zeros::<f32>(n).unwrap(),
        device.zeros::<f32>(n).unwrap(),
    );
    let mut c = device.zeros::<f32>(n).unwrap();
    let ms = common::time_on(
        &stream,
        || launch!(scaled_sum[n / 256, 256, stream](&a, &b, 1.0, &mut c)),
    )
    .unwrap();
    assert!(ms > 0.0 && ms < 60_000.0, "{ms} ms");
    assert!(c.to_host().unwrap().iter().all(|&v| v == 0.0));
}
