//! `cargo xtask gpu-bundle --out-dir DIR`: everything the GPU machine (which has no Rust
//! toolchain) needs, in one folder: release test binaries of the whole workspace, the
//! examples, the benches (with bench/'s runner when present), AOT PTX in `DIR/ptx`
//! (also embedded, by building with `CUDAJIT_AOT_DIR`), and `run.sh`, which runs them
//! all, writes logs to `$OUT` (or `DIR/logs`) and prints a summary table last.

use std::path::{Path, PathBuf};
use std::process::Stdio;

struct Artifact {
    /// `test`, `example` or `bench`.
    role: &'static str,
    name: String,
    /// cargo's target name (bench/run.sh looks for `./vecadd_launch`).
    target: String,
    path: PathBuf,
}

pub fn run(args: &[String]) -> Result<PathBuf, String> {
    let root = crate::root();
    let out = crate::values(args, "--out-dir")?
        .pop()
        .unwrap_or_else(|| "bundle".into());
    let out = if Path::new(&out).is_absolute() {
        PathBuf::from(out)
    } else {
        root.join(out)
    };
    let aot = !crate::has(args, "--no-aot");
    let bin = out.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;

    let ptx = out.join("ptx");
    if aot {
        let srcs: Vec<PathBuf> = ["examples", "tests", "src", "bench"]
            .iter()
            .map(|d| root.join(d))
            .collect();
        let report = crate::build_device::build(&["compute_90".to_string()], &ptx, &srcs)?;
        crate::build_device::warn_or_fail(&report, false)?;
    }

    let mut cmd = crate::cargo();
    cmd.args([
        "build",
        "--release",
        "--workspace",
        "--tests",
        "--examples",
        "--benches",
        // The `gpu_fidelity` test (issue 7's generated programs) is behind this feature.
        "--features",
        "cudajit/fidelity",
        "--message-format=json",
    ])
    .stdout(Stdio::piped());
    if aot {
        cmd.env("CUDAJIT_AOT_DIR", &ptx);
    }
    eprintln!("xtask: running {cmd:?}");
    let output = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("cargo build failed with {}", output.status));
    }
    let artifacts = artifacts(&String::from_utf8_lossy(&output.stdout));
    let has_runner = root.join("bench/run.sh").is_file();
    let mut rows = Vec::new();
    for a in &artifacts {
        // Tests that need no GPU run in CI; the bench binary goes beside its runner.
        let gpu_test = a.role == "test" && a.target.contains("gpu");
        if !(gpu_test || a.role == "example" || (a.role == "bench" && !has_runner)) {
            continue;
        }
        let file = format!("{}-{}", a.role, a.name);
        copy_stripped(&a.path, &bin.join(&file))?;
        rows.push((a.role, file));
    }
    if aot {
        let user_crate = build_user_crate(&root)?;
        copy_stripped(&user_crate, &bin.join("user-aot-crate"))?;
        rows.push(("user", "user-aot-crate".to_string()));
    }
    copy_bench_runner(&root, &out, &artifacts)?;
    std::fs::write(out.join("run.sh"), run_script(&rows)).map_err(|e| format!("run.sh: {e}"))?;
    set_executable(&out.join("run.sh"));
    let _ = std::fs::write(out.join("COMMIT"), git_commit(&root));
    eprintln!(
        "xtask: bundle in {} ({} binaries)",
        out.display(),
        rows.len()
    );
    Ok(out)
}

/// `tests/aot_crate`, a user's crate that compiles its kernels ahead of time in its own
/// `build.rs` (cudajit-build), in release: on the GPU it runs with libnvvm hidden, so
/// every launch must load the PTX it embedded.
fn build_user_crate(root: &Path) -> Result<PathBuf, String> {
    let tc = crate::toolchain::locate_or_install()?;
    let crate_dir = root.join("tests/aot_crate");
    // A workspace member: built with the workspace's Cargo.lock, so it has none of its own.
    let mut cmd = crate::cargo();
    cmd.args(["build", "--release", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(root.join("target"))
        .env("CUDAJIT_NVVM_PATH", &tc.nvvm)
        .env_remove("CUDAJIT_AOT_DIR");
    crate::run_checked(&mut cmd)?;
    Ok(root.join("target/release/aot-crate"))
}

pub fn bench(args: &[String]) -> Result<(), String> {
    let out = run(args)?;
    let root = crate::root();
    let rel = out
        .strip_prefix(&root)
        .unwrap_or(&out)
        .display()
        .to_string();
    println!(
        "Bundle ready in {rel}. On the GPU machine run, from the repository root:\n\
         \n    bash {rel}/run.sh\n\n\
         (through the device tool: command `bash {rel}/run.sh`, carry [\"{rel}\"] and \".whl\" if \
         Numba's comparison should run). Logs and the summary go to $OUT.\n\
         The SIMT suite alone (nvcc, cudajit, Numba, CuPy/cuBLAS; a few minutes): \
         `bash {rel}/bench/run_simt.sh` (and `bash {rel}/bench/run_hl.sh`, `bash {rel}/bench/run_tc.sh`); \
         then here `cargo xtask chart simt.txt simt.png` (`cargo xtask chart-hl hl.txt hl.png`, \
         `cargo xtask chart-tc tc.txt tc.png`)."
    );
    Ok(())
}

fn git_commit(root: &Path) -> String {
    std::process::Command::new("git")
        .current_dir(root)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Executables from cargo's JSON messages: test harnesses, examples, benches.
fn artifacts(json: &str) -> Vec<Artifact> {
    let mut out: Vec<Artifact> = Vec::new();
    for line in json.lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let Some(exe) = msg["executable"].as_str() else {
            continue;
        };
        let kinds: Vec<&str> = msg["target"]["kind"]
            .as_array()
            .map(|k| k.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        let is_test = msg["profile"]["test"].as_bool().unwrap_or(false);
        let role = if kinds.contains(&"example") {
            "example"
        } else if kinds.contains(&"bench") {
            "bench"
        } else if is_test {
            "test"
        } else {
            continue; // xtask itself and other binaries
        };
        if kinds.contains(&"proc-macro") {
            continue; // its test binary needs the toolchain's libstd.so
        }
        // `path+file:///w/main#cudajit@0.1.0` or `path+file:///w/kernel-host#0.1.0`.
        let id = msg["package_id"].as_str().unwrap_or("");
        let tail = id.rsplit('/').next().unwrap_or(id);
        let package = match tail.split_once('#') {
            Some((dir, rest)) => rest.split_once('@').map_or(dir, |(name, _)| name),
            None => tail,
        };
        let target = msg["target"]["name"].as_str().unwrap_or("unknown");
        let mut name =
            if package.is_empty() || package.replace('-', "_") == target.replace('-', "_") {
                target.to_string()
            } else {
                format!("{package}-{target}")
            };
        if kinds.iter().any(|k| k.contains("lib")) {
            name.push_str("-unit");
        }
        let seen = out.iter().any(|a| a.role == role && a.name == name);
        // xtask's own tests, and trybuild (needs cargo and sources), are not for the GPU machine.
        let host_only_test = role == "test" && (package == "xtask" || target == "ui");
        if !seen && !host_only_test {
            out.push(Artifact {
                role,
                name,
                target: target.to_string(),
                path: PathBuf::from(exe),
            });
        }
    }
    out
}

/// bench/'s runner and its inputs, with the Rust bench binaries beside it.
fn copy_bench_runner(root: &Path, out: &Path, artifacts: &[Artifact]) -> Result<(), String> {
    let bench = root.join("bench");
    if !bench.join("run.sh").is_file() {
        return Ok(());
    }
    copy_dir(&bench, &out.join("bench"))?;
    for a in artifacts.iter().filter(|a| a.role == "bench") {
        copy_stripped(&a.path, &out.join("bench").join(&a.target))?;
    }
    let wheels = root.join(".whl");
    if wheels.is_dir() {
        copy_dir(&wheels, &out.join(".whl"))?;
    }
    Ok(())
}

/// Copies an executable without its symbols: the bundle travels under a size limit.
fn copy_stripped(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to).map_err(|e| format!("copying {}: {e}", from.display()))?;
    // Best effort: an unstripped binary still runs.
    let _ = std::process::Command::new("strip").arg(to).status();
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from)
        .map_err(|e| format!("{}: {e}", from.display()))?
        .flatten()
    {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            if entry.file_name() != "results" {
                copy_dir(&src, &dst)?;
            }
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
}

fn run_script(rows: &[(&str, String)]) -> String {
    let mut s = String::from(
        r#"#!/usr/bin/env bash
# Generated by `cargo xtask gpu-bundle`: runs the GPU test binaries (with the embedded
# ahead-of-time PTX, then JIT through libnvvm with CUDAJIT_AOT=0), every example (and
# one with libnvvm made unavailable), and the benchmarks on the GPU machine. Logs go to
# ./logs, packed into $OUT/logs.tar.gz when $OUT is set; the summary table comes last.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
logs="$here/logs"
mkdir -p "$logs"
summary=()
failures=0
run() {  # run ROLE NAME CMD...
  local role="$1" name="$2"; shift 2
  local log="$logs/$role-$name.log"
  echo "=== $role $name"
  local start=$SECONDS
  "$@" >"$log" 2>&1
  local rc=$?
  local secs=$((SECONDS - start))
  local passed failed skipped
  passed=$(grep -Eo '[0-9]+ passed' "$log" | awk '{s+=$1} END {print s+0}')
  failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
  skipped=$(grep -c 'skipped:' "$log")
  tail -n 5 "$log"
  local status=ok
  if [ "$rc" -ne 0 ]; then status="FAILED($rc)"; failures=$((failures + 1)); fi
  summary+=("$(printf '%-8s %-40s %-10s %6s %6s %7s %5ss' "$role" "$name" "$status" "$passed" "$failed" "$skipped" "$secs")")
}
export CUDAJIT_CACHE_DIR="${CUDAJIT_CACHE_DIR:-$(mktemp -d)}"
# The GPU suite must run on the GPU: never fall back to the CPU simulator unnoticed.
export CUDAJIT_BACKEND="${CUDAJIT_BACKEND:-cuda}"
"#,
    );
    for (role, file) in rows.iter().filter(|(r, _)| *r == "test") {
        s.push_str(&format!("run {role} {file} \"$here/bin/{file}\"\n"));
        s.push_str(&format!(
            "run {role} {file}-jit env CUDAJIT_AOT=0 \"$here/bin/{file}\"\n"
        ));
        // Every test binary runs as a user's `cargo test` runs it (one thread per
        // test); the stress suite once more one test at a time.
        if file.starts_with("gpu_stress") {
            s.push_str(&format!(
                "run {role} {file}-serial \"$here/bin/{file}\" --test-threads=1\n"
            ));
        }
    }
    for (role, file) in rows.iter().filter(|(r, _)| *r == "example") {
        s.push_str(&format!("run {role} {file} \"$here/bin/{file}\"\n"));
    }
    // A deployed binary with embedded PTX needs no libnvvm: vecadd's kernel is all
    // AOT (the high-level examples' kernels are written at run time, so JIT-compiled).
    let aot_example = rows
        .iter()
        .find(|(r, f)| *r == "example" && f.ends_with("vecadd"))
        .or_else(|| rows.iter().find(|(r, _)| *r == "example"));
    // A user's crate whose build.rs embedded its kernels (cudajit-build): with libnvvm
    // hidden, its launches pass only if they load that PTX.
    for (role, file) in rows.iter().filter(|(r, _)| *r == "user") {
        s.push_str(&format!(
            "run {role} {file}-no-libnvvm env CUDAJIT_NVVM_PATH=/nonexistent/libnvvm.so CUDAJIT_BACKEND=cuda \"$here/bin/{file}\"\n"
        ));
    }
    if let Some((role, file)) = aot_example {
        s.push_str(&format!(
            "run {role} {file}-no-libnvvm env CUDAJIT_NVVM_PATH=/nonexistent/libnvvm.so \"$here/bin/{file}\"\n"
        ));
    }
    s.push_str(
        r#"if [ -f "$here/bench/run_simt.sh" ]; then
  run bench simt-suite bash "$here/bench/run_simt.sh"
fi
if [ -f "$here/bench/run_hl.sh" ]; then
  run bench hl-suite bash "$here/bench/run_hl.sh"
fi
if [ -f "$here/bench/run_tc.sh" ]; then
  run bench tc-suite bash "$here/bench/run_tc.sh"
fi
if [ -f "$here/bench/run.sh" ]; then
  run bench runner bash "$here/bench/run.sh"
else
"#,
    );
    let benches: Vec<_> = rows.iter().filter(|(r, _)| *r == "bench").collect();
    if benches.is_empty() {
        s.push_str("  :\n");
    }
    for (role, file) in benches {
        s.push_str(&format!(
            "  run {role} {file} \"$here/bin/{file}\" --bench\n"
        ));
    }
    s.push_str(
        r#"fi
{
  echo
  printf '%-8s %-40s %-10s %6s %6s %7s %6s\n' role name status passed failed skipped time
  printf '%s\n' "${summary[@]}"
  echo "$failures failing binaries"
} | tee "$logs/summary.txt"
if [ -n "${OUT:-}" ]; then
  cp "$logs/summary.txt" "$OUT/summary.txt"
  tar czf "$OUT/logs.tar.gz" -C "$logs" .
fi
[ "$failures" -eq 0 ]
"#,
    );
    s
}
