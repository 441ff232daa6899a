//! Shared by the examples and tests/gpu.rs: a seeded RNG (fresh inputs each run, seed
//! printed so a failure can be replayed with `CUDAJIT_SEED`), comparison against a
//! CPU reference, kernel timing with events, and saying which backend ran.
#![allow(dead_code)]

use cudajit::{Device, Event, Stream};

/// The default device, announced on stdout: every example says which backend ran it
/// (a GPU, or the CPU simulator on a machine without one).
pub fn announce(example: &str) -> cudajit::Result<Device> {
    let device = Device::default()?;
    println!("{example}: running on {device}");
    Ok(device)
}

/// A problem size: `gpu` on a GPU, `simulator` on the CPU simulator, which interprets
/// every thread (and checks its accesses) at some millions of threads per second.
pub fn size_for(device: &Device, gpu: usize, simulator: usize) -> usize {
    if device.is_simulator() {
        simulator
    } else {
        gpu
    }
}

/// How a timed kernel reads: GPU time and bandwidth, or the simulator's speed.
pub fn describe_time(device: &Device, ms: f32, threads: usize, bytes: usize) -> String {
    let seconds = ms as f64 * 1e-3;
    if device.is_simulator() {
        format!(
            "simulated in {ms:.1} ms ({:.1} M threads/s)",
            threads as f64 / seconds / 1e6
        )
    } else {
        format!(
            "kernel {:.1} us ({:.0} GB/s)",
            ms * 1e3,
            bytes as f64 / seconds / 1e9
        )
    }
}

/// The examples' test data: fastrand's generator, seeded and the seed printed.
pub struct Rng(fastrand::Rng);

impl Rng {
    /// Seeded from `CUDAJIT_SEED` if set, else fresh; prints the seed.
    pub fn fresh(what: &str) -> Rng {
        let seed = std::env::var("CUDAJIT_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| fastrand::u64(..));
        println!("{what}: seed {seed} (replay with CUDAJIT_SEED={seed})");
        Rng::new(seed)
    }

    pub fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.u64(..)
    }

    /// Uniform in `[lo, hi)`.
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    pub fn vec_f32(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32_in(lo, hi)).collect()
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0.u64(..n.max(1))
    }
}

/// Compares `got` with an f64 reference: each element must satisfy
/// `|got - want| <= abs + rel * |want|`. NaN in `got` (the poison) always fails.
pub fn compare(name: &str, got: &[f32], want: &[f64], abs: f64, rel: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{name}: {} results, expected {}",
            got.len(),
            want.len()
        ));
    }
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| {
            let (g, w) = (got[i] as f64, want[i]);
            !(g - w).abs().le(&(abs + rel * w.abs()))
        })
        .collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{name}: {} of {} elements differ from the CPU reference; first at {i}: got {}, expected {}",
            bad.len(),
            got.len(),
            got[i],
            want[i]
        )),
    }
}

/// Kernel time of `launch` on `stream` in milliseconds: the median of 21 launches, each
/// between two events, after 3 warm-up launches (on the simulator: 3 after 1).
pub fn time_on(
    stream: &Stream,
    mut launch: impl FnMut() -> cudajit::Result<()>,
) -> cudajit::Result<f32> {
    // A first launch runs on cold caches and TLBs: warm up, then report the median
    // of several launches, each between its own pair of events.
    // The simulator's timings vary little and each launch costs seconds: fewer.
    let (warmup, timed) = if stream.device().is_simulator() {
        (1, 3)
    } else {
        (3, 21)
    };
    for _ in 0..warmup {
        launch()?;
    }
    let mut times = Vec::with_capacity(timed);
    for _ in 0..timed {
        let start = Event::record(stream)?;
        launch()?;
        let end = Event::record(stream)?;
        end.synchronize()?;
        times.push(start.elapsed_ms(&end)?);
    }
    // Synchronizing the stream also reports a device-side panic of the launches.
    stream.synchronize()?;
    times.sort_by(f32::total_cmp);
    Ok(times[timed / 2])
}

pub type MainResult = Result<(), Report>;

/// An error returned from `main`: Rust prints it with `Debug`, so this `Debug` shows
/// the error's message (`Error: no CUDA driver: ...`) rather than its fields.
pub struct Report(Box<dyn std::error::Error>);

impl<E: Into<Box<dyn std::error::Error>>> From<E> for Report {
    fn from(error: E) -> Self {
        Report(error.into())
    }
}

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}
