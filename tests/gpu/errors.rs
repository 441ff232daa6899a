//! Errors are values: device-side panics with kernel name and file:line (and the
//! context stays usable), bad launch configurations, and device arrays / streams /
//! shared memory through `launch!`.

use super::{common, line_of, vecadd};
use cudajit::prelude::*;

#[kernel]
fn write_all(a: &mut [f32]) {
    let i = grid(1);
    a[i] = 1.0; // panic site: index
}

#[kernel]
fn divide(a: &[i32], b: &[i32], c: &mut [i32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] / b[i]; // panic site: divide
    }
}

#[test]
fn out_of_bounds_index_is_an_err_with_location_and_context_survives() {
    let _gpu = require_gpu!();
    let mut a = vec![0.0f32; 100];
    let err = launch!(write_all[1, 128](&mut a)).unwrap_err().to_string();
    let site = format!(
        "tests/gpu/errors.rs:{}",
        line_of_errors(concat!("panic site", ": index"))
    );
    assert!(err.contains("write_all"), "{err}");
    assert!(err.contains(&site), "expected {site} in: {err}");
    assert!(
        err.contains("index out of bounds: the len is 100 but the index is"),
        "{err}"
    );
    // The same context runs the next launch normally.
    let mut ok = vec![f32::NAN; 128];
    launch!(write_all[1, 128](&mut ok)).unwrap();
    assert!(ok.iter().all(|&v| v == 1.0));
}

#[test]
fn divide_by_zero_is_an_err() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("divide");
    let n = 512;
    let a: Vec<i32> = (0..n).map(|_| rng.below(1000) as i32 - 500).collect();
    let mut b: Vec<i32> = (0..n).map(|_| rng.below(99) as i32 + 1).collect();
    let mut c = vec![i32::MIN; n];
    launch!(divide[n / 128, 128](&a, &b, &mut c)).unwrap();
    assert!((0..n).all(|i| c[i] == a[i] / b[i]));
    b[rng.below(n as u64) as usize] = 0;
    let err = launch!(divide[n / 128, 128](&a, &b, &mut c))
        .unwrap_err()
        .to_string();
    assert!(err.contains("attempt to divide by zero"), "{err}");
    let site = format!(
        "tests/gpu/errors.rs:{}",
        line_of_errors(concat!("panic site", ": divide"))
    );
    assert!(err.contains(&site), "expected {site} in: {err}");
}

fn line_of_errors(marker: &str) -> usize {
    include_str!("errors.rs")
        .lines()
        .position(|l| l.contains(marker))
        .expect("marker")
        + 1
}

#[test]
fn invalid_launch_configurations_are_errs() {
    let _gpu = require_gpu!();
    let (a, b) = (vec![1.0f32; 4096], vec![2.0f32; 4096]);
    let mut c = vec![0.0f32; 4096];
    let err = launch!(vecadd[2, 2048](&a, &b, &mut c))
        .unwrap_err()
        .to_string();
    assert!(err.contains("1024"), "block of 2048 threads: {err}");
    assert!(
        launch!(vecadd[0, 128](&a, &b, &mut c)).is_err(),
        "empty grid"
    );
    assert!(
        launch!(vecadd[1, (32, 32, 2)](&a, &b, &mut c)).is_err(),
        "32*32*2 threads"
    );
    assert!(
        launch!(vecadd[1, -1](&a, &b, &mut c)).is_err(),
        "negative block"
    );
    // Nothing was launched, and the context is fine.
    launch!(vecadd[16, 256](&a, &b, &mut c)).unwrap();
    assert!(c.iter().all(|&v| v == 3.0));
    let _ = line_of;
}

#[test]
fn device_arrays_chain_without_copies() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("device arrays");
    let n = 10_000;
    let (a, b) = (rng.vec_f32(n, -1.0, 1.0), rng.vec_f32(n, -1.0, 1.0));
    let (da, db) = (
        cudajit::to_device(&a).unwrap(),
        cudajit::to_device(&b).unwrap(),
    );
    let mut sum = cudajit::to_device(&vec![f32::NAN; n]).unwrap();
    let mut twice = DeviceArray::<f32>::zeros(n).unwrap();
    assert_eq!(sum.len(), n);
    launch!(vecadd[n.div_ceil(256), 256](&da, &db, &mut sum)).unwrap();
    // The second launch reads the first one's output where it lies.
    launch!(vecadd[n.div_ceil(256), 256](&sum, &sum, &mut twice)).unwrap();
    let got = twice.to_host().unwrap();
    let want: Vec<f64> = (0..n)
        .map(|i| ((a[i] + b[i]) + (a[i] + b[i])) as f64)
        .collect();
    common::compare("chained", &got, &want, 0.0, 0.0).unwrap();
    let mut back = vec![f32::NAN; n];
    sum.copy_to_host(&mut back).unwrap();
    assert!((0..n).all(|i| back[i] == a[i] + b[i]));
}

#[test]
fn launch_with_stream_and_shared_bytes() {
    let gpu = require_gpu!();
    let n = 4096;
    let (a, b) = (vec![1.5f32; n], vec![2.0f32; n]);
    let (da, db) = (
        cudajit::to_device(&a).unwrap(),
        cudajit::to_device(&b).unwrap(),
    );
    let mut dc = cudajit::to_device(&vec![f32::NAN; n]).unwrap();
    let stream = gpu.new_stream().unwrap();
    launch!(vecadd[n / 256, 256, stream, 1024](&da, &db, &mut dc)).unwrap();
    stream.synchronize().unwrap();
    assert!(dc.to_host().unwrap().iter().all(|&v| v == 3.5));
    // Host slices on a stream: copied back and synchronized by the launch.
    let mut c = vec![f32::NAN; n];
    launch!(vecadd[n / 256, 256, stream, 0](&a, &b, &mut c)).unwrap();
    assert!(c.iter().all(|&v| v == 3.5));
    // More dynamic shared memory than any GPU has.
    let err = launch!(vecadd[1, 256, stream, 1 << 30](&da, &db, &mut dc)).unwrap_err();
    assert!(err.to_string().contains("shared"), "{err}");
}
