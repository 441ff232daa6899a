//! Issue 22 §2: every scalar method and math function of the intrinsic table at every
//! type's edge values (MIN, MAX, ±0, subnormals, ±inf, NaN, |x| near overflow), run as
//! a kernel and compared with rustc's result for the same expression on the host; and
//! the two functions that rustc and the H200 disagreed on, as regression tests.
//!
//! - integers, bools and the exact float operations bit for bit (NaN against NaN,
//!   payloads unspecified by Rust); every integer result is also widened and compared
//!   inside the kernel, because a narrow value held wrongly in a 32-bit register is
//!   invisible once stored (the store truncates) and shows only in its consumers;
//! - libdevice transcendentals within their documented ulps plus one for the host's
//!   libm, and exactly in class: NaN, the sign of an infinity and of a zero.
//!
//! Written once for both backends: the simulator here and in CI, the GPU in the bundle
//! (`CUDAJIT_BACKEND=cuda`). Rust's release semantics are the reference; where a debug
//! build's rustc would panic on overflow the host side uses the `wrapping_` form the
//! kernel's operation is defined as.

/// Says why a test did not run, on stderr written directly so that the test
/// harness's output capture does not hide the reason.
macro_rules! skip {
    ($($reason:tt)*) => {{
        use std::io::Write as _;
        let test = std::thread::current().name().unwrap_or("test").to_string();
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", format_args!($($reason)*));
    }};
}

/// The default device (a GPU, or the CPU simulator), or return from the test saying why
/// it is skipped.
macro_rules! require_device {
    () => {
        match cudajit::Device::default() {
            Ok(device) => device,
            Err(e) => {
                skip!("no device ({e})");
                return;
            }
        }
    };
}

#[path = "../examples/common/mod.rs"]
#[allow(dead_code)]
mod common;

#[path = "gpu_edges/edges.rs"]
mod edges;

#[path = "gpu_edges/regressions.rs"]
mod regressions;

#[path = "gpu_edges/ints.rs"]
mod ints;

#[path = "gpu_edges/floats.rs"]
mod floats;
