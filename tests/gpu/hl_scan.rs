//! High-level scans over many tiles (issue 12): the single-pass look-back scan across
//! several windows of 32 tiles, with reused tile states, on simulators of any worker
//! count, into given arrays, and the three-pass scan of 8-bit elements; each checked
//! against a host reference on fresh random inputs.

use super::common::Rng;
use super::hl::{add_i64, first_nonzero, lengths};
use cudajit::{device_fn, DeviceArray};

#[cudajit::device]
fn add_u32(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

#[cudajit::device]
fn add_u8(a: u8, b: u8) -> u8 {
    a.wrapping_add(b)
}

/// Lengths of many scan tiles (6144 elements of 32 bits on a GPU, 4096 of 64 bits; 512
/// on the simulator): the single-pass scan's look-back walks over windows of 32 earlier
/// tiles, so these cross several windows, and end on a 32-bit tile boundary or one past
/// it.
fn many_tile_lengths(device: &cudajit::Device) -> Vec<usize> {
    let tile = if device.is_simulator() { 512 } else { 6144 };
    vec![33 * tile, 33 * tile + 1, 70 * tile + 5, 97 * tile - 1]
}

#[test]
fn scans_look_back_over_many_tiles() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl long scans");
    // Each length twice: the second call reuses the first one's tile states.
    for n in many_tile_lengths(&device).into_iter().flat_map(|n| [n, n]) {
        let xu: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let got = cudajit::inclusive_scan(&xu, device_fn!(add_u32), 0)
            .unwrap()
            .to_host()
            .unwrap();
        let mut run = 0u32;
        let want: Vec<u32> = xu
            .iter()
            .map(|&v| {
                run = run.wrapping_add(v);
                run
            })
            .collect();
        assert_eq!(got, want, "u32 inclusive scan, n = {n}");

        let xl: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
        let got = cudajit::exclusive_scan(&xl, device_fn!(add_i64), 0)
            .unwrap()
            .to_host()
            .unwrap();
        let mut run = 0i64;
        let want: Vec<i64> = xl
            .iter()
            .map(|&v| {
                let before = run;
                run = run.wrapping_add(v);
                before
            })
            .collect();
        assert_eq!(got, want, "i64 exclusive scan, n = {n}");

        // Not commutative: a tile's prefix must fold earlier tiles in their order.
        // Sparse nonzeros (about one per 3 tiles) make most prefixes come from far back.
        let xi: Vec<i32> = (0..n)
            .map(|_| {
                if rng.below(1500) == 0 {
                    rng.next_u64() as i32 | 1
                } else {
                    0
                }
            })
            .collect();
        let got = cudajit::inclusive_scan(&xi, device_fn!(first_nonzero), 0)
            .unwrap()
            .to_host()
            .unwrap();
        let mut run = 0i32;
        let want: Vec<i32> = xi
            .iter()
            .map(|&v| {
                run = if run != 0 { run } else { v };
                run
            })
            .collect();
        assert_eq!(got, want, "first_nonzero inclusive scan, n = {n}");
    }
}

#[test]
fn scans_into_given_arrays() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl scan into");
    let long = many_tile_lengths(&device)[2];
    for n in lengths(&device).into_iter().chain([long]) {
        let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let dx = DeviceArray::from_slice(&x).unwrap();
        // Poisoned first: every element must be written.
        let mut out = DeviceArray::from_slice(&vec![0xdead_beef_u32; n]).unwrap();
        cudajit::inclusive_scan_into(&dx, device_fn!(add_u32), 0, &mut out).unwrap();
        let mut run = 0u32;
        let want: Vec<u32> = x
            .iter()
            .map(|&v| {
                run = run.wrapping_add(v);
                run
            })
            .collect();
        assert_eq!(out.to_host().unwrap(), want, "inclusive_scan_into, n = {n}");

        let mut out = DeviceArray::from_slice(&vec![0xdead_beef_u32; n]).unwrap();
        cudajit::exclusive_scan_into(&x, device_fn!(add_u32), 0, &mut out).unwrap();
        let mut run = 0u32;
        let want: Vec<u32> = x
            .iter()
            .map(|&v| {
                let before = run;
                run = run.wrapping_add(v);
                before
            })
            .collect();
        assert_eq!(out.to_host().unwrap(), want, "exclusive_scan_into, n = {n}");
    }
    let mut short = DeviceArray::<u32>::zeros(3).unwrap();
    let e = cudajit::inclusive_scan_into(&[1u32, 2, 3, 4], device_fn!(add_u32), 0, &mut short)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`input` holds 4") && e.contains("`out` holds 3"),
        "{e}"
    );
}

/// The look-back waits on earlier tiles' blocks: on simulators of 1 worker (blocks one
/// after another), 3 and 8 workers (blocks at once, in any interleaving), each with 3
/// differently seeded schedules and race detection on, a scan over many tiles must
/// neither hang nor race nor differ from the CPU.
#[test]
fn look_back_on_simulators_of_any_worker_count() {
    let mut rng = Rng::fresh("hl look-back workers");
    let n = 70 * 512 + 5;
    for workers in [1, 3, 8] {
        let sim = cudajit::Device::simulator_with(cudajit::SimOptions {
            workers,
            schedules: 3,
            seed: rng.next_u64(),
            ..cudajit::SimOptions::default()
        });
        let stream = sim.new_stream().unwrap();
        let x: Vec<i32> = (0..n)
            .map(|_| {
                if rng.below(1500) == 0 {
                    rng.next_u64() as i32 | 1
                } else {
                    0
                }
            })
            .collect();
        let dx = sim.to_device(&x).unwrap();
        for _ in 0..2 {
            let got = cudajit::inclusive_scan_on(&stream, &dx, device_fn!(first_nonzero), 0)
                .unwrap()
                .to_host()
                .unwrap();
            let mut run = 0i32;
            let want: Vec<i32> = x
                .iter()
                .map(|&v| {
                    run = if run != 0 { run } else { v };
                    run
                })
                .collect();
            assert_eq!(got, want, "first_nonzero scan on {workers} workers");
        }
    }
}

#[test]
fn scans_of_8_bit_elements() {
    // Shuffles move 32/64-bit words: u8 scans take the three-pass path.
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl u8 scans");
    for n in lengths(&device) {
        let x: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        let got = cudajit::inclusive_scan(&x, device_fn!(add_u8), 0)
            .unwrap()
            .to_host()
            .unwrap();
        let mut run = 0u8;
        let want: Vec<u8> = x
            .iter()
            .map(|&v| {
                run = run.wrapping_add(v);
                run
            })
            .collect();
        assert_eq!(got, want, "u8 inclusive scan, n = {n}");
    }
}

/// Picks a scan layout for its life (a benchmark knob, global: other tests' scans
/// running meanwhile take either kernel, all exact).
struct Layout;

impl Layout {
    fn set(layout: u32) -> Layout {
        cudajit::__private::hl::set_scan_layout(layout);
        Layout
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        cudajit::__private::hl::set_scan_layout(0);
    }
}

/// The other layouts of the single-pass scan: resident blocks with packed states (1)
/// and with the next tile loaded during the look-back (2).
#[test]
fn resident_and_pipelined_scan_layouts() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl scan layouts");
    let stream = device.new_stream().unwrap();
    let mut sizes = many_tile_lengths(&device);
    sizes.extend([1, 31, 33, 4097]);
    for layout in [1, 2] {
        let _layout = Layout::set(layout);
        let what = format!("layout {layout}");
        // Each length twice: the second call reuses the first one's tile states.
        for n in sizes.iter().flat_map(|&n| [n, n]) {
            let xu: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let dx = device.to_device(&xu).unwrap();
            let mut out = DeviceArray::from_slice_on(&device, &vec![0xdead_beefu32; n]).unwrap();
            cudajit::exclusive_scan_into_on(&stream, &dx, device_fn!(add_u32), 0, &mut out)
                .unwrap();
            let mut run = 0u32;
            let want: Vec<u32> = xu
                .iter()
                .map(|&v| {
                    let before = run;
                    run = run.wrapping_add(v);
                    before
                })
                .collect();
            assert!(
                out.to_host().unwrap() == want,
                "u32 exclusive scan, n = {n}, {what}"
            );

            // Not commutative: a tile's prefix must fold earlier tiles in their order.
            let xi: Vec<i32> = (0..n)
                .map(|_| {
                    if rng.below(1500) == 0 {
                        rng.next_u64() as i32 | 1
                    } else {
                        0
                    }
                })
                .collect();
            let got = cudajit::inclusive_scan_on(&stream, &xi, device_fn!(first_nonzero), 0)
                .unwrap()
                .to_host()
                .unwrap();
            let mut run = 0i32;
            let want: Vec<i32> = xi
                .iter()
                .map(|&v| {
                    run = if run != 0 { run } else { v };
                    run
                })
                .collect();
            assert!(got == want, "first_nonzero inclusive scan, n = {n}, {what}");

            // 64-bit elements take layout 1 in either case.
            let xl: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
            let got = cudajit::inclusive_scan_on(&stream, &xl, device_fn!(add_i64), 0)
                .unwrap()
                .to_host()
                .unwrap();
            let mut run = 0i64;
            let want: Vec<i64> = xl
                .iter()
                .map(|&v| {
                    run = run.wrapping_add(v);
                    run
                })
                .collect();
            assert!(got == want, "i64 inclusive scan, n = {n}, {what}");
        }
    }
}
