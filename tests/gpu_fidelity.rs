//! Issue 7's proof on a GPU: random programs of the kernel subset
//! (`gpu/fidelity/programs.rs`, written by `cargo xtask gen-fidelity --seed S --count N`)
//! each run as a kernel, one input tuple per thread, on random inputs that include every
//! type's edge values, and are compared with the same `#[device]` functions as rustc
//! compiled them for the host:
//! - integers and bools bit for bit; floats bit for bit, NaN against NaN whatever the
//!   payload (Rust does not specify NaN payloads); programs ending in a libdevice
//!   transcendental within its documented ulps plus one for the host's libm;
//! - panics: an input that panics on the host must panic on the device (its thread
//!   never sets `done`), and the panic the launch reports must carry the host's message.
//!
//! Rust's release semantics are the reference (overflow wraps), so the comparison runs
//! only in a release build (the GPU bundle); a debug build with a GPU says it skipped.
//! Without a GPU it skips too; CI compiles the programs through libnvvm and ptxas in
//! kernel-device's `fidelity_programs` test instead.
//!
//! `CUDAJIT_SEED` replays the inputs; `CUDAJIT_FIDELITY_ONLY=prog17` runs one program.

#[path = "../examples/common/mod.rs"]
mod common;

#[path = "fidelity/harness.rs"]
mod harness;

// Generated; `cargo xtask gen-fidelity` output is committed as written.
#[rustfmt::skip]
#[path = "gpu/fidelity/programs.rs"]
mod programs;

use common::Rng;
use harness::{
    install_quiet_panic_hook, overflow_checks_off, run_programs, Harness, Outcome, Tolerance, Value,
};

/// Says why a test did not run, on stderr written directly so that the test
/// harness's output capture does not hide the reason.
macro_rules! skip {
    ($($reason:tt)*) => {{
        use std::io::Write as _;
        let test = std::thread::current().name().unwrap_or("test").to_string();
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", format_args!($($reason)*));
    }};
}

#[test]
fn generated_programs_match_rustc() {
    if let Err(e) = cudajit::Device::default() {
        skip!("no GPU ({e})");
        return;
    }
    install_quiet_panic_hook();
    if !overflow_checks_off() {
        skip!("build in release (the GPU bundle does): rustc's reference must wrap on overflow as kernels do");
        return;
    }
    let seed = std::env::var("CUDAJIT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| Rng::fresh("fidelity inputs").next_u64());
    let only = std::env::var("CUDAJIT_FIDELITY_ONLY").ok();
    let summary = run_programs(programs::PROGRAMS, "GPU", seed, only.as_deref());
    // Straight to stderr (as `skip!` does), so the summary shows in the bundle's logs
    // even when the test passes and its captured output is dropped.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "fidelity: {} programs (generator seed {}), inputs seed {seed} (replay with \
         CUDAJIT_SEED={seed}): {} inputs compared, {} programs panicked on some \
         inputs on both sides, {} programs mismatched",
        summary.programs,
        programs::SEED,
        summary.inputs,
        summary.panicking,
        summary.failures.len()
    );
    assert!(
        summary.failures.is_empty(),
        "{} of {} programs differ from rustc (inputs seed {seed}):\n{}",
        summary.failures.len(),
        summary.programs,
        summary.failures.join("\n")
    );
}

/// The comparison itself, without a GPU: a wrong value, a missing panic, an extra
/// panic and a different panic message are each reported; agreement is not.
#[test]
fn check_reports_every_kind_of_mismatch() {
    install_quiet_panic_hook();
    let mut h = Harness::new("GPU", 1, 0);
    h.n = 4;
    let host = |j: usize| -> i32 {
        if j == 3 {
            panic!("attempt to divide by zero");
        }
        j as i32
    };
    let show = |j: usize| format!("({j})");
    let panic_at = |j: u32, message: &str| -> cudajit::Result<()> {
        Err(cudajit::Error::KernelPanic {
            kernel: "k".into(),
            file: "f.rs".into(),
            line: 1,
            column: 1,
            message: message.into(),
            block: 0,
            thread: j,
        })
    };
    let out = [0, 1, 2, 0];
    let agree = h.check(
        "p",
        Tolerance::Exact,
        panic_at(3, "attempt to divide by zero"),
        &out,
        &[1, 1, 1, 0],
        host,
        show,
    );
    assert_eq!(agree, Ok((4, 1)));
    let wrong_value = h.check(
        "p",
        Tolerance::Exact,
        panic_at(3, "attempt to divide by zero"),
        &[0, 5, 2, 0],
        &[1, 1, 1, 0],
        host,
        show,
    );
    assert!(wrong_value.unwrap_err().contains("p(1): GPU 5, rustc 1"));
    let missing_panic = h.check(
        "p",
        Tolerance::Exact,
        Ok(()),
        &[0, 1, 2, 9],
        &[1, 1, 1, 1],
        host,
        show,
    );
    assert!(missing_panic.unwrap_err().contains("rustc panicked"));
    let extra_panic = h.check(
        "p",
        Tolerance::Exact,
        panic_at(3, "attempt to divide by zero"),
        &out,
        &[1, 0, 1, 0],
        host,
        show,
    );
    assert!(extra_panic.unwrap_err().contains("p(1): GPU panicked"));
    let other_message = h.check(
        "p",
        Tolerance::Exact,
        panic_at(3, "attempt to divide with overflow"),
        &out,
        &[1, 1, 1, 0],
        host,
        show,
    );
    assert!(other_message
        .unwrap_err()
        .contains("rustc with \"attempt to divide by zero\""));
    // Floats: NaN payloads are not compared, ulps only where allowed.
    assert!(f32::NAN.same(-f32::NAN, Tolerance::Exact));
    assert!(!1.0f32.same(1.0f32 + f32::EPSILON, Tolerance::Exact));
    assert!(1.0f32.same(1.0f32 + f32::EPSILON, Tolerance::Ulps(1)));
    assert!(!0.0f64.same(-0.0, Tolerance::Exact));
    assert!(0.0f64.same(-0.0, Tolerance::Ulps(1)));
}
