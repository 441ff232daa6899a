//! A user's crate (`tests/aot_crate`: depends on cudajit by path, its build.rs calls
//! `cudajit_build::embed_device_code()`, its root `cudajit::embed_device_code!()`),
//! built in the workspace's target directory (reusing what the workspace built) and run
//! with libnvvm hidden:
//! - built without libnvvm: the build succeeds with a cargo warning, and the kernels
//!   run (on the simulator) compiled at their first launch;
//! - built with libnvvm: the binary finds embedded PTX (and, with a ptxas, sm_90
//!   machine code) for each kernel and generic instantiation through the runtime's own
//!   lookup, while it cannot load libnvvm.
//!   On a GPU its launches themselves load that PTX without libnvvm; here they run on
//!   the simulator (which interprets the IR and needs no PTX).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// A path where no libnvvm is: set explicitly, so nothing else is searched.
const NOWHERE: &str = "/nonexistent/cudajit-hidden/libnvvm.so";

const KERNELS: [&str; 4] = [
    "vecadd",
    "axpy2::<f32>",
    "axpy2::<f64>",
    "stride_fill::<f64, 3>",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
}

/// Builds the crate with `nvvm` as the only libnvvm (`None`: the caller's setting),
/// returning cargo's output.
fn build(nvvm: Option<&str>) -> Output {
    let crate_dir = workspace().join("tests/aot_crate");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut cmd = Command::new(cargo);
    // The test profile, as `cargo test` built the workspace: its dependencies are reused
    // (the dev profile rebuilt them all, ~2 minutes of CI on 2 cores).
    cmd.args(["build", "--profile", "test", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir())
        .env_remove("CUDAJIT_AOT_DIR")
        .env_remove("CUDAJIT_AOT")
        .env_remove("CUDAJIT_AOT_ARCHES");
    if let Some(nvvm) = nvvm {
        cmd.env("CUDAJIT_NVVM_PATH", nvvm);
    }
    let output = cmd.output().unwrap();
    assert!(
        output.status.success(),
        "building tests/aot_crate failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs the built binary with libnvvm hidden; its stdout.
fn run(backend: Option<&str>) -> String {
    let cache = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(target_dir().join("debug/aot-crate"));
    cmd.env("CUDAJIT_NVVM_PATH", NOWHERE)
        .env("CUDAJIT_CACHE_DIR", cache.path())
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .env_remove("VIRTUAL_ENV")
        .env_remove("CONDA_PREFIX")
        .env_remove("CUDAJIT_AOT");
    if let Some(backend) = backend {
        cmd.env("CUDAJIT_BACKEND", backend);
    }
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "aot-crate failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for kernel in KERNELS {
        assert!(
            stdout.lines().any(|l| l == format!("ok {kernel}")),
            "{kernel} did not match its CPU reference:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("libnvvm unavailable: "),
        "libnvvm was not hidden from the binary:\n{stdout}"
    );
    stdout
}

#[test]
fn user_crate_compiled_ahead_of_time_runs_without_libnvvm() {
    let started = Instant::now();
    // Without libnvvm at build time: a warning, no failure, every kernel left to the JIT.
    let output = build(Some(NOWHERE));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning: aot-crate@0.1.0: cudajit: kernels not compiled ahead of time, they will be compiled at their first launch"),
        "no warning about the missing libnvvm:\n{stderr}"
    );
    let stdout = run(Some("sim"));
    for kernel in KERNELS {
        assert!(
            stdout.lines().any(|l| l == format!("jit {kernel}")),
            "{kernel}: embedded PTX found in a build without libnvvm:\n{stdout}"
        );
    }
    let fallback = started.elapsed();

    let nvvm = match cudajit_build::Nvvm::load() {
        Ok(nvvm) => nvvm,
        Err(e) => {
            eprintln!("skipped: the ahead-of-time half: no libnvvm to compile with ({e}); `cargo xtask test` provides one");
            return;
        }
    };
    // With a ptxas beside libnvvm (or named), the build embeds sm_90 machine code too.
    let sass = if cudajit_build::ptxas_for(&nvvm).is_some() {
        "sass sm_90 "
    } else {
        eprintln!("skipped: embedded machine code: no ptxas beside libnvvm or in CUDAJIT_PTXAS");
        ""
    };
    let output = build(None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("cudajit:"),
        "the ahead-of-time build warned:\n{stderr}"
    );
    let stdout = run(None);
    for kernel in KERNELS {
        assert!(
            stdout.lines().any(|l| {
                l.starts_with(&format!("embedded {kernel} compute_90 "))
                    && l.contains(&format!(" {sass}"))
            }),
            "{kernel}: no embedded PTX ({sass}) found by the runtime's lookup:\n{stdout}"
        );
    }
    if stdout.contains("backend Cuda") {
        eprintln!("GPU: every launch loaded embedded PTX with libnvvm hidden");
    } else {
        eprintln!(
            "skipped: loading the embedded PTX on a GPU (none here; the launches ran on the simulator, the lookup found PTX for {KERNELS:?})"
        );
    }
    eprintln!(
        "aot_crate: {:.1} s (fallback build and run {:.1} s)",
        started.elapsed().as_secs_f64(),
        fallback.as_secs_f64()
    );
}
