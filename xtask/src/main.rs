//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo
//! does.
//!
//! - `test`: finds libnvvm and ptxas (or installs the pinned pip wheels under
//!   `target/cuda-toolchain`), then runs every test of the workspace with them, the
//!   examples on the simulator and the fuzz differential, side by side in lanes
//!   ([`ci`]).
//! - `build-device [--arch compute_90 ..] --out-dir DIR [--src DIR ..]`: compiles
//!   every `#[kernel]` ahead of time to PTX (by default for compute_80, 90, 100 and 120
//!   at once; the runtime loads the newest the device supports) plus the manifest kernel-host embeds when
//!   built with `CUDAJIT_AOT_DIR=DIR`; a kernel that needs what only rustc knows (a
//!   `static` made by a `const fn`) is left to the JIT with a warning (`--strict`: an error).
//! - `gpu-bundle --out-dir DIR`: release test binaries, examples and benches with a
//!   `run.sh` that runs them all on the GPU machine.
//! - `bench`: builds the bundle and says how to run it.
//! - `chart TABLE.txt OUT.png`: the ratio chart of a SIMT benchmark run's table.
//! - `chart-hl TABLE.txt OUT.png`: the same for the high-level operations' table.
//! - `chart-tc TABLE.txt OUT.png`: the same for the tensor-core table (bench/run_tc.sh).
//! - `chart-multi TABLE.txt OUT.png`: the multi-GPU table's ratios (bench/run_multi.sh).
//! - `chart-launch TABLE.txt OUT.png`: the launch's host time over the bare launch
//!   (bench/run.sh's bench.txt).
//! - `gen-fidelity --seed S --count N --out FILE`: random programs of the subset for
//!   the GPU-vs-rustc comparison (issue 7).
//! - `fuzz [--count N] [--seed S] [--mode plain|opt|mixed]`: N fresh random programs on the CPU simulator against
//!   rustc (issue 8); `test` runs it with 2,000 and a fresh seed.
//! - `cycles --crate NAME | --dir PATH | --top-level NAME`: import cycles among a
//!   crate's files (or a folder's, or its top-level modules'); `test` checks kernel-host.
//! - `cache [info|clear]`: the kernel disk cache's location and size, or clearing it.

mod build_device;
mod bundle;
mod cache;
mod chart;
mod ci;
mod cycles;
mod fidelity;
mod fuzz;
mod toolchain;

use lexopt::ValueExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <command>
  test                                  run all tests (installs libnvvm/ptxas if needed)
  build-device [--arch ARCH ..] --out-dir DIR [--src DIR ..] [--strict]
                                        compile every #[kernel] to PTX + manifest.txt
                                        (default: compute_80, 90, 100 and 120)
  gpu-bundle --out-dir DIR [--no-aot]   build release tests/examples/benches + run.sh
  bench [--out-dir DIR]                 build the bundle and print how to run it
  chart TABLE.txt OUT.png               draw a SIMT bench table's ratios against nvcc
  chart-hl TABLE.txt OUT.png            draw the hl bench table's ratios (bench/run_hl.sh)
  chart-tc TABLE.txt OUT.png            draw the tensor-core table's ratios (bench/run_tc.sh)
  chart-multi TABLE.txt OUT.png         draw the multi-GPU table's ratios (bench/run_multi.sh)
  chart-launch TABLE.txt OUT.png        draw the launch's host time over the bare launch (bench/run.sh)
  gen-fidelity --seed S [--count N] --out FILE
                                        write N random programs of the subset (default 1000)
  fuzz [--count N] [--seed S] [--mode plain|opt|mixed]
                                        N fresh random programs on the simulator against rustc
                                        (default 2000, a new seed each run)
  cycles --crate NAME | --dir CRATE/src/PATH | --top-level NAME
                                        print import cycles among a crate's files (or a
                                        folder's files, or its top-level modules); fail on one
  cache [info|clear]                    show the kernel disk cache (location, entries, size)
                                        or remove its entries";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => ci::test(&args[1..]),
        Some("build-device") => build_device::run(&args[1..]),
        Some("gpu-bundle") => bundle::run(&args[1..]).map(|_| ()),
        Some("bench") => bundle::bench(&args[1..]),
        Some("chart") => chart::run(&args[1..], &chart::SIMT),
        Some("chart-hl") => chart::run(&args[1..], &chart::HL),
        Some("chart-tc") => chart::run(&args[1..], &chart::TC),
        Some("chart-multi") => chart::run(&args[1..], &chart::MULTI),
        Some("chart-launch") => chart::run(&args[1..], &chart::LAUNCH),
        Some("gen-fidelity") => fidelity::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("cache") => cache::run(&args[1..]),
        Some("cycles") => cycles::run(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("unknown or missing command\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (xtask sits one level below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask has a parent directory")
        .to_path_buf()
}

pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

/// Runs `cmd`, failing with its command line when it exits non-zero.
pub fn run_checked(cmd: &mut Command) -> Result<(), String> {
    eprintln!("xtask: running {cmd:?}");
    run_quietly(cmd)
}

/// Runs `cmd` as it is set up (its output wherever it goes), failing with its command
/// line when it cannot start or exits non-zero.
pub fn run_quietly(cmd: &mut Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed with {status}"))
    }
}

/// Values of a repeated `--flag VALUE` / `--flag=VALUE` option, as lexopt splits the
/// arguments; the command's other options are read by other calls, so they are passed
/// over here.
pub fn values(args: &[String], flag: &str) -> Result<Vec<String>, String> {
    let name = flag.trim_start_matches('-');
    let mut parser = lexopt::Parser::from_args(args);
    let mut found = Vec::new();
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            lexopt::Arg::Long(long) if long == name => {
                let value = parser.value().map_err(|e| format!("{flag}: {e}"))?;
                found.push(value.string().map_err(|e| e.to_string())?);
            }
            lexopt::Arg::Long(_) | lexopt::Arg::Short(_) => {
                // `--other=VALUE`: its value is not an argument of its own.
                let _ = parser.optional_value();
            }
            lexopt::Arg::Value(_) => {}
        }
    }
    Ok(found)
}

/// Whether the switch `--flag` is given.
pub fn has(args: &[String], flag: &str) -> bool {
    let name = flag.trim_start_matches('-');
    let mut parser = lexopt::Parser::from_args(args);
    while let Ok(Some(arg)) = parser.next() {
        match arg {
            lexopt::Arg::Long(long) if long == name => return true,
            lexopt::Arg::Long(_) | lexopt::Arg::Short(_) => {
                let _ = parser.optional_value();
            }
            lexopt::Arg::Value(_) => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn values_and_switches_are_read_in_both_spellings() {
        let a = args("--arch compute_90 --strict --arch=compute_80 --out-dir out x");
        assert_eq!(
            super::values(&a, "--arch").unwrap(),
            ["compute_90", "compute_80"]
        );
        assert_eq!(super::values(&a, "--out-dir").unwrap(), ["out"]);
        assert!(super::values(&a, "--src").unwrap().is_empty());
        assert!(super::has(&a, "--strict"));
        assert!(!super::has(&a, "--no-aot"));
        assert!(super::values(&args("--seed"), "--seed").is_err());
    }
}
