//! The simulator against GPU concurrency bugs as a user meets them: bug classes from
//! the race-detection literature (GPUVerify, HiRace, iGUARD, Barracuda, Faial) and
//! from real CUDA/Numba mistakes, each beside its fixed version, plus correct kernels
//! that a naive detector would flag (traps). Every bug must be found with the default
//! settings and with 8 schedules, in each of 3 seeded runs; every fix and trap must run
//! clean; every run has a deadline that fails the test instead of hanging it.
//!
//! Every kernel takes `(a: &mut [u32], b: &mut [u32])`, 256 elements each, `a[i] = i`
//! and `b` zeroed, so one harness launches them all.

use std::sync::mpsc;
use std::time::Duration;

use cudajit::prelude::*;
use cudajit::{Error, SimOptions};

const N: usize = 256;
const DEADLINE: Duration = Duration::from_secs(60);

type Launch = fn(&Device) -> cudajit::Result<()>;

/// Runs `launch` on a simulated device with `options`, in a thread with a deadline.
fn run_with(name: &str, launch: Launch, options: SimOptions) -> cudajit::Result<()> {
    let (tx, rx) = mpsc::channel();
    let given = options.clone();
    std::thread::spawn(move || {
        let device = Device::simulator_with(given);
        let _ = tx.send(launch(&device));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(result) => result,
        Err(_) => panic!("`{name}` did not finish within {DEADLINE:?} ({options:?})"),
    }
}

fn runs() -> impl Iterator<Item = SimOptions> {
    [1u32, 8].into_iter().flat_map(|schedules| {
        (0..3u64).map(move |k| SimOptions {
            seed: 11 + k * 7919,
            schedules,
            ..SimOptions::default()
        })
    })
}

fn expect_bug(name: &str, launch: Launch) {
    for options in runs() {
        match run_with(name, launch, options.clone()) {
            Err(e @ Error::Simulator { .. }) => {
                // `SIM_SUITE_SHOW=1 cargo test --test sim_suite -- --nocapture` to
                // review every report.
                if std::env::var_os("SIM_SUITE_SHOW").is_some() {
                    eprintln!("{name} ({} schedules): {e}", options.schedules);
                }
            }
            Err(other) => panic!("`{name}` ({options:?}): expected a simulator fault, got {other}"),
            Ok(()) => panic!("`{name}` ran clean ({options:?}), but it is broken"),
        }
    }
}

fn expect_clean(name: &str, launch: Launch) {
    for options in runs() {
        if let Err(e) = run_with(name, launch, options.clone()) {
            panic!("`{name}` ({options:?}) is correct, but: {e}");
        }
    }
}

fn inputs() -> (Vec<u32>, Vec<u32>) {
    ((0..N as u32).collect(), vec![0; N])
}

/// A test for a bug and its fix, each launched as `kernel[grid, block]`.
macro_rules! pair {
    ($test:ident: $bug:ident / $fix:ident [$grid:expr, $block:expr]) => {
        #[test]
        fn $test() {
            crate::expect_bug(stringify!($bug), |d| {
                let (mut a, mut b) = crate::inputs();
                let s = d.default_stream();
                launch!($bug[$grid, $block, s](&mut a, &mut b))
            });
            crate::expect_clean(stringify!($fix), |d| {
                let (mut a, mut b) = crate::inputs();
                let s = d.default_stream();
                launch!($fix[$grid, $block, s](&mut a, &mut b))
            });
        }
    };
}

/// A correct kernel that must run clean.
macro_rules! trap {
    ($test:ident: $k:ident [$grid:expr, $block:expr]) => {
        #[test]
        fn $test() {
            crate::expect_clean(stringify!($k), |d| {
                let (mut a, mut b) = crate::inputs();
                let s = d.default_stream();
                launch!($k[$grid, $block, s](&mut a, &mut b))
            });
        }
    };
}

#[path = "sim_suite/barriers.rs"]
mod barriers;
#[path = "sim_suite/global.rs"]
mod global;
#[path = "sim_suite/memory_model.rs"]
mod memory_model;
#[path = "sim_suite/shared_memory.rs"]
mod shared_memory;
#[path = "sim_suite/spins.rs"]
mod spins;
#[path = "sim_suite/warps.rs"]
mod warps;
