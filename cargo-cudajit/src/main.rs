//! `cargo cudajit build-device`: compiles the current crate's `#[kernel]`s (and the
//! generic instantiations its `cudajit::instantiate!` lists name) to PTX ahead of time,
//! with a progress bar when there are many, into a directory with `manifest.txt`.
//! `CUDAJIT_AOT_DIR=<that directory> cargo build` then embeds it (kernel-host's
//! `build.rs` reads the variable), so the binary launches them without libnvvm.
//! The same compile as `cudajit_build::embed_device_code()` in a `build.rs`, which
//! needs no extra step; this command suits a build that must not run libnvvm itself.
//!
//! Install: `cargo install --path cargo-cudajit` (or from a registry as `cargo-cudajit`).

use cudajit_build::{Nvvm, Progress, Request};
use indicatif::{ProgressBar, ProgressStyle};
use lexopt::ValueExt as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo cudajit build-device [--arch compute_XY].. [--src DIR].. [--out-dir DIR] [--strict]
  Compiles the kernels under the current crate's src/ (and each --src) for each --arch
  (default compute_90) into --out-dir (default <workspace>/target/cudajit-aot), then
  embed them with `CUDAJIT_AOT_DIR=<out-dir> cargo build`. libnvvm is found as at run
  time (CUDAJIT_NVVM_PATH, CUDA_HOME, /usr/local/cuda, the nvidia-nvvm wheel).
  --strict: fail if a kernel cannot be compiled from its source alone.";

/// More compiles than this get a progress bar; fewer, one line each.
const BAR_FROM: usize = 8;

fn main() -> ExitCode {
    // `cargo cudajit ...` runs `cargo-cudajit cudajit ...`.
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "cudajit") {
        args.remove(0);
    }
    let result = match args.first().map(String::as_str) {
        Some("build-device") => build_device(&args[1..]),
        Some("-h" | "--help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The flags of `build-device`, as written.
#[derive(Debug, Default, PartialEq)]
struct BuildDeviceFlags {
    arches: Vec<String>,
    srcs: Vec<String>,
    out_dir: Option<String>,
    strict: bool,
}

impl BuildDeviceFlags {
    fn parse(args: &[String]) -> Result<Self, lexopt::Error> {
        let mut flags = BuildDeviceFlags::default();
        let mut parser = lexopt::Parser::from_args(args);
        while let Some(arg) = parser.next()? {
            match arg {
                lexopt::Arg::Long("arch") => flags.arches.push(parser.value()?.string()?),
                lexopt::Arg::Long("src") => flags.srcs.push(parser.value()?.string()?),
                lexopt::Arg::Long("out-dir") => flags.out_dir = Some(parser.value()?.string()?),
                lexopt::Arg::Long("strict") => flags.strict = true,
                other => return Err(other.unexpected()),
            }
        }
        Ok(flags)
    }
}

fn build_device(args: &[String]) -> Result<(), String> {
    let flags = BuildDeviceFlags::parse(args).map_err(|e| format!("{e}\n{USAGE}"))?;
    let mut arches = flags.arches;
    if arches.is_empty() {
        arches.push(cudajit_build::DEFAULT_ARCH.to_string());
    }
    let package = package_dir()?;
    let root = cudajit_build::workspace_root(&package);
    let mut srcs = vec![package.join("src")];
    srcs.extend(flags.srcs.into_iter().map(|s| package.join(s)));
    let out = flags
        .out_dir
        .map(|d| std::env::current_dir().map(|c| c.join(d)))
        .transpose()
        .map_err(|e| e.to_string())?
        .unwrap_or_else(|| root.join("target/cudajit-aot"));
    let strict = flags.strict;

    let nvvm = Nvvm::load().map_err(|e| e.to_string())?;
    // Machine code beside the PTX where a ptxas is found, as `embed_device_code` does.
    let ptxas = cudajit_build::ptxas_for(&nvvm);
    let bar = ProgressBar::hidden();
    let report = cudajit_build::build(
        &Request {
            arches: &arches,
            out: &out,
            srcs: &srcs,
            skip: &[],
            root: &root,
            ptxas: ptxas.as_deref(),
        },
        &nvvm,
        &mut |progress| show(&bar, progress),
    )?;
    bar.finish_and_clear();
    eprintln!(
        "cudajit: wrote {} PTX files{} and manifest.txt to {}\n  embed them: CUDAJIT_AOT_DIR={} cargo build",
        report.written,
        if ptxas.is_some() { " with their machine code" } else { "" },
        out.display(),
        out.display()
    );
    report.warn_or_fail("cudajit", strict)
}

/// A bar once the number of compiles is known and large; a line per compile otherwise.
fn show(bar: &ProgressBar, progress: Progress) {
    match progress {
        Progress::Planned(total) if total > BAR_FROM => {
            bar.set_length(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} kernels, {elapsed} {msg}")
                    .expect("a valid template"),
            );
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        Progress::Planned(_) => {}
        Progress::Compiled { kernel, arch } => {
            if bar.is_hidden() {
                eprintln!("cudajit: compiled {kernel} for {arch}");
            }
            bar.set_message(kernel.to_string());
            bar.inc(1);
        }
        Progress::Skipped { kernel } => bar.println(format!("cudajit: left to the JIT: {kernel}")),
    }
}

/// The directory of the package `cargo` would build here.
fn package_dir() -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["locate-project", "--message-format", "plain"])
        .output()
        .map_err(|e| format!("cannot run cargo locate-project: {e}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_string());
    }
    let toml = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    toml.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| format!("{} has no directory", toml.display()))
}

#[cfg(test)]
mod tests {
    use super::BuildDeviceFlags;

    fn parse(text: &str) -> Result<BuildDeviceFlags, String> {
        let args: Vec<String> = text.split_whitespace().map(String::from).collect();
        BuildDeviceFlags::parse(&args).map_err(|e| e.to_string())
    }

    #[test]
    fn flags_are_read_in_both_spellings_and_strangers_refused() {
        assert_eq!(
            parse("--arch compute_90 --src=kernels --arch=compute_80 --out-dir out --strict"),
            Ok(BuildDeviceFlags {
                arches: vec!["compute_90".into(), "compute_80".into()],
                srcs: vec!["kernels".into()],
                out_dir: Some("out".into()),
                strict: true,
            })
        );
        assert_eq!(parse(""), Ok(BuildDeviceFlags::default()));
        assert!(parse("--arch").is_err());
        assert!(parse("--archs compute_90").is_err());
        assert!(parse("stray").is_err());
    }
}
