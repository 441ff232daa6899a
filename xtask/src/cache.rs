//! `cargo xtask cache [info|clear]`: where the kernel cache is, what it holds, and
//! clearing it, through the same API users call (`cudajit::cache::info`/`clear`), so
//! the location follows the same environment (`CUDAJIT_CACHE_DIR`, `XDG_CACHE_HOME`,
//! `HOME`).

pub fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        None | Some("info") => {
            let info = kernel_host::disk::info().map_err(|e| format!("reading the cache: {e}"))?;
            println!("{info}");
            Ok(())
        }
        Some("clear") => {
            let removed =
                kernel_host::disk::clear().map_err(|e| format!("clearing the cache: {e}"))?;
            let info = kernel_host::disk::info().map_err(|e| format!("reading the cache: {e}"))?;
            println!(
                "removed {} files ({} bytes); {info}",
                removed.files, removed.bytes
            );
            Ok(())
        }
        Some(other) => Err(format!(
            "unknown cache command `{other}`: use `cargo xtask cache` or `cargo xtask cache clear`"
        )),
    }
}
