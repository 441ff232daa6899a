//! Issue 10: a libnvvm planted under `target/cuda-toolchain` of the working directory
//! or of any parent is never loaded. The search runs in a child process (this test
//! binary again) whose working directory is inside the planted tree and whose
//! environment names no libnvvm.

use std::process::Command;

const CHILD_ROLE: &str = "CUDAJIT_SEARCH_TEST_CHILD";

#[test]
fn planted_toolchain_under_the_working_directory_is_not_loaded() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let planted = [
        "nvidia/cu13/lib/libnvvm.so.4",
        "lib/libnvvm.so.4",
        "nvvm/lib64/libnvvm.so",
    ];
    for level in ["", "a/", "a/b/"] {
        for file in planted {
            let path = root.join(format!("{level}target/cuda-toolchain/{file}"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            // Not a library: loading it would fail with an error naming this path.
            std::fs::write(&path, b"planted").unwrap();
        }
    }
    let cwd = root.join("a/b/c");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_process", "--nocapture"])
        .current_dir(&cwd)
        .env(CHILD_ROLE, "1")
        .env("HOME", root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env_remove("CUDAJIT_NVVM_PATH")
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .env_remove("VIRTUAL_ENV")
        .env_remove("CONDA_PREFIX")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let result = stdout
        .lines()
        .find(|l| l.starts_with("search: "))
        .unwrap_or_else(|| panic!("no result from the child:\n{stdout}"));
    assert!(
        !result.contains(&*root.to_string_lossy()),
        "the planted tree was searched: {result}"
    );
}

/// The child side; a no-op in a normal test run.
#[test]
fn child_process() {
    if std::env::var_os(CHILD_ROLE).is_none() {
        return;
    }
    // One line: a found library's path, or the error (which lists every searched path).
    match kernel_device::nvvm::Nvvm::load() {
        Ok(nvvm) => println!("search: loaded {}", nvvm.path().display()),
        Err(e) => println!("search: {}", e.to_string().replace('\n', " | ")),
    }
}
