//! `cargo xtask test`: CI's run, on a machine of two cores. Every test target of the
//! workspace (as `cargo test --workspace --all-targets` selects them), every example on
//! the simulator and the fuzz differential, after one build of them all.
//!
//! Run one after another, as `cargo test` runs its binaries, most of the time went to
//! steps that keep one core busy and the other idle: trybuild's own build of the
//! compiler for the compile-fail project (`ui`), the user crate that `aot_crate` builds
//! twice, the fuzz programs' compiles, a simulator test of one long launch. So after the
//! build the work runs in lanes, side by side, each a `cargo test` (or the examples, or
//! the fuzz pieces) of its own, its output kept in `target/xtask-test/LANE.log` and
//! printed whole when the lane ends, with its time. A failing lane fails the run after
//! the others have finished, so one run reports every failure.
//!
//! Cargo holds the target directory's lock only while it builds, so lanes that build
//! (the fuzz pieces, `aot_crate`'s user crate) wait for each other there and run beside
//! everything else.

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::toolchain::Toolchain;

#[cfg(test)]
mod feature_parity;

/// Test targets that take minutes of their own: each is a lane, started first.
const OWN_LANES: [&str; 2] = ["ui", "aot_crate"];

/// The user crate that the `aot_crate` lane builds, twice, with libnvvm hidden and
/// not: left out of every other build, so that none of them rebuilds its binary (with
/// libnvvm) between that lane's build and its run.
const AOT_CRATE: &str = "aot-crate";

/// The root package's examples, which `test` runs on the simulator.
const EXAMPLES: [&str; 7] = [
    "vecadd",
    "saxpy",
    "blur",
    "reduce",
    "scan",
    "vectorize",
    "nbody_multi",
];

/// One lane: a name, and its work, which writes to the lane's log.
struct Lane {
    name: &'static str,
    work: Box<dyn FnOnce(&File) -> Result<(), String> + Send>,
}

impl Lane {
    /// A lane that runs `steps` in order, stopping at the first failure.
    fn of(name: &'static str, steps: Vec<Command>) -> Lane {
        Lane {
            name,
            work: Box::new(move |log| {
                steps
                    .into_iter()
                    .try_for_each(|mut step| run_logged(&mut step, log))
            }),
        }
    }
}

pub fn test(args: &[String]) -> Result<(), String> {
    let started = Instant::now();
    // Import cycles first: a second, and no toolchain needed.
    crate::cycles::run_test_checks()?;
    let tc = crate::toolchain::locate_or_install()?;
    eprintln!("xtask: libnvvm {}", tc.nvvm.display());
    eprintln!("xtask: ptxas   {}", tc.ptxas.display());
    // One build of every target the lanes run (the examples' test-harness builds
    // included: `--all-targets`).
    let mut build = cargo_test(&tc);
    build.args([
        "--workspace",
        "--exclude",
        AOT_CRATE,
        "--all-targets",
        "--no-run",
    ]);
    crate::run_checked(&mut build)?;
    eprintln!(
        "xtask: build done after {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let lanes = lanes(&tc, args)?;
    let result = run_lanes(lanes);
    eprintln!(
        "xtask: test: {} after {:.0} s",
        if result.is_ok() { "passed" } else { "FAILED" },
        started.elapsed().as_secs_f64()
    );
    result
}

/// `cargo test` with libnvvm and ptxas set.
fn cargo_test(tc: &Toolchain) -> Command {
    let mut cmd = crate::cargo();
    cmd.arg("test")
        .env("CUDAJIT_NVVM_PATH", &tc.nvvm)
        .env("CUDAJIT_PTXAS", &tc.ptxas);
    cmd
}

/// The lanes, longest first: each of [`OWN_LANES`], the fuzz pieces, every other test
/// target, the examples. `args` (after `cargo xtask test`) go to every `cargo test`.
fn lanes(tc: &Toolchain, args: &[String]) -> Result<Vec<Lane>, String> {
    let mut lanes = Vec::new();
    for name in OWN_LANES {
        let mut cmd = cargo_test(tc);
        cmd.args(["--workspace", "--test", name]).args(args);
        lanes.push(Lane::of(name, vec![cmd]));
    }
    // Issue 8's differential test: fresh programs on the simulator against rustc.
    lanes.push(Lane {
        name: "fuzz",
        work: Box::new(|log| crate::fuzz::fuzz(crate::fuzz::CI_COUNT, None, Some(log))),
    });
    // Every other target `--all-targets` selects: the same flags, with the test
    // targets named one by one.
    let mut rest = cargo_test(tc);
    rest.args(["--workspace", "--exclude", AOT_CRATE]);
    rest.args(["--lib", "--bins", "--examples", "--benches"]);
    for test in other_tests()? {
        rest.args(["--test", &test]);
    }
    rest.args(args);
    lanes.push(Lane::of("tests", vec![rest]));
    // Every example on the CPU simulator, each checking itself against its CPU
    // reference. Built for the whole workspace in the test profile, as `cargo test`
    // resolved the features: it reuses every library just built (`cargo run --example`
    // from the root package alone resolved other features and rebuilt them).
    let mut steps = Vec::new();
    let mut build = crate::cargo();
    build
        .args(["build", "--workspace", "--profile", "test", "--examples"])
        .env("CUDAJIT_NVVM_PATH", &tc.nvvm)
        .env("CUDAJIT_PTXAS", &tc.ptxas);
    steps.push(build);
    let examples_dir = target_dir().join("debug/examples");
    for example in EXAMPLES {
        let mut run = Command::new(examples_dir.join(example));
        run.current_dir(crate::root())
            .env("CUDAJIT_BACKEND", "sim")
            .env("CUDAJIT_NVVM_PATH", &tc.nvvm);
        steps.push(run);
    }
    lanes.push(Lane::of("examples", steps));
    Ok(lanes)
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::root().join("target"))
}

/// The workspace's test targets that `cargo test --all-targets` runs (no
/// `required-features`), except [`OWN_LANES`]', from `cargo metadata`.
fn other_tests() -> Result<Vec<String>, String> {
    let output = crate::cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata's output: {e}"))?;
    let mut tests = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        for target in package["targets"].as_array().into_iter().flatten() {
            let is_test = target["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k == "test"));
            let gated = target["required-features"]
                .as_array()
                .is_some_and(|features| !features.is_empty());
            let name = target["name"].as_str().unwrap_or_default();
            if is_test && !gated && !OWN_LANES.contains(&name) && !tests.iter().any(|t| t == name) {
                tests.push(name.to_string());
            }
        }
    }
    Ok(tests)
}

/// Runs every lane on its own thread; prints each lane's log when it ends.
fn run_lanes(lanes: Vec<Lane>) -> Result<(), String> {
    let logs = target_dir().join("xtask-test");
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    let started = Instant::now();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = lanes
            .into_iter()
            .map(|lane| {
                let path = logs.join(format!("{}.log", lane.name));
                eprintln!("xtask: lane {} started (log {})", lane.name, path.display());
                scope.spawn(move || {
                    let Lane { name, work } = lane;
                    let result = File::create(&path)
                        .map_err(|e| format!("{}: {e}", path.display()))
                        .and_then(|log| work(&log));
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    // One write, so that lanes ending together do not interleave.
                    eprint!(
                        "{text}xtask: lane {name} {} after {:.0} s\n",
                        if result.is_ok() { "passed" } else { "FAILED" },
                        started.elapsed().as_secs_f64()
                    );
                    result.map_err(|e| format!("lane {name}: {e}"))
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a lane panicked".into()))
                    .err()
            })
            .collect()
    });
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Runs `cmd` with its output appended to `log`; fails with its command line when it
/// exits non-zero.
pub fn run_logged(cmd: &mut Command, log: &File) -> Result<(), String> {
    use std::io::Write as _;
    let mut writer = log;
    let _ = writeln!(writer, "xtask: running {cmd:?}");
    let clone = || log.try_clone().map_err(|e| format!("the lane's log: {e}"));
    crate::run_quietly(cmd.stdout(clone()?).stderr(clone()?))
}
