//! The statistics the benchmarks share, and how each finds its GPU (each bench includes
//! this file as `mod stats`).

/// The median of `samples` (the mean of the middle two for an even count).
pub fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    let m = samples.len() / 2;
    if samples.len() % 2 == 1 {
        samples[m]
    } else {
        0.5 * (samples[m - 1] + samples[m])
    }
}

/// Medians (µs) of `reps` event-timed launches on `stream` of the checked (`true`) and
/// unchecked variants, interleaved launch by launch so that clock drift favours
/// neither, after `warmup` untimed rounds; `before` (untimed) runs before each launch.
#[allow(dead_code)] // not every bench times a checked/unchecked pair
pub fn time_checked_pair(
    stream: &cudajit::Stream,
    warmup: usize,
    reps: usize,
    before: &mut dyn FnMut() -> Result<(), Box<dyn std::error::Error>>,
    body: &mut dyn FnMut(bool) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    for _ in 0..warmup {
        for checked in [true, false] {
            before()?;
            body(checked)?;
        }
    }
    stream.synchronize()?;
    let mut events = Vec::with_capacity(reps);
    for _ in 0..reps {
        let mut pair = Vec::with_capacity(2);
        for checked in [true, false] {
            before()?;
            let start = cudajit::Event::record(stream)?;
            body(checked)?;
            pair.push((start, cudajit::Event::record(stream)?));
        }
        events.push(pair);
    }
    // Also surfaces a device-side panic of a checked kernel as an Err.
    stream.synchronize()?;
    let (mut checked, mut unchecked) = (Vec::new(), Vec::new());
    for pair in &events {
        checked.push(pair[0].0.elapsed_ms(&pair[0].1)? as f64 * 1e3);
        unchecked.push(pair[1].0.elapsed_ms(&pair[1].1)? as f64 * 1e3);
    }
    Ok((median(checked), median(unchecked)))
}

/// The CUDA device a benchmark runs on, or `None` after printing why it is skipped: no
/// CUDA driver library, no device, or a default device that is the simulator (`cargo
/// test --all-targets` runs every bench binary on machines without a GPU).
#[allow(dead_code)] // not every bench finds its device this way
pub fn gpu_device() -> Option<cudajit::Device> {
    // SAFETY: only asks the loader whether libcuda can be opened.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        println!("skipped: no CUDA driver library (libcuda) on this machine");
        return None;
    }
    match cudajit::Device::default() {
        Ok(d) if !d.is_simulator() => Some(d),
        Ok(_) => {
            println!("skipped: the default device is the simulator");
            None
        }
        Err(e) => {
            println!("skipped: no CUDA device: {e}");
            None
        }
    }
}
