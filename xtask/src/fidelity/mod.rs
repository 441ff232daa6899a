//! `cargo xtask gen-fidelity --seed S --count N --out FILE`: writes N random programs of
//! the kernel subset (issue 7's proof) as one Rust module. The GPU bundle's
//! `gpu_fidelity` test runs each as a kernel and compares it with rustc's host build;
//! kernel-device's `fidelity_programs` test compiles the committed sample through the
//! frontend, libnvvm and ptxas in CI.

pub mod gen;
pub mod program;
pub mod statements;
pub mod types;

use std::path::PathBuf;

pub fn run(args: &[String]) -> Result<(), String> {
    let one =
        |flag: &str| -> Result<Option<String>, String> { Ok(crate::values(args, flag)?.pop()) };
    let seed: u64 = one("--seed")?
        .ok_or("--seed S is required")?
        .parse()
        .map_err(|e| format!("--seed: {e}"))?;
    let count: usize = one("--count")?
        .unwrap_or_else(|| "1000".into())
        .parse()
        .map_err(|e| format!("--count: {e}"))?;
    let out = one("--out")?.ok_or("--out FILE is required")?;
    let out = PathBuf::from(out);
    let out = if out.is_absolute() {
        out
    } else {
        crate::root().join(out)
    };
    let text = program::module(seed, count);
    std::fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!(
        "xtask: {count} programs of seed {seed} in {}",
        out.display()
    );
    Ok(())
}
