//! The statistics the benchmarks share (each bench includes this file as `mod stats`).

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
