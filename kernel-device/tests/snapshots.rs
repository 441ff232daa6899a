//! Snapshot tests, naga style: each `tests/in/<name>.rs` (and each workspace example,
//! as `example_<name>`) holds `#[kernel]`/`#[device]` functions; every kernel's
//! compilation unit is lowered exactly as at run time (frontend → validator → NVVM IR
//! writer) and the file's units are compared with `tests/out/nvvm/<name>.ll`. A difference fails the test
//! and the actual output is written under the target's tmp dir. `CUDAJIT_BLESS=1`
//! rewrites the expected files instead. The `cudajit` crate's own device functions
//! (`src/random.rs`) are callable from every input. With the toolchain configured (see
//! `common::toolchain`) every snapshot also goes through libnvvm and ptxas. A generic
//! kernel is rendered once per instantiation its file names (`instantiate!`).

mod common;

use std::path::{Path, PathBuf};

use kernel_device::back::nvvm::Options;
use kernel_device::nvvm_ir_for_kernel;
use kernel_device::offline;
use kernel_device::source::SourceKind;

/// Snapshot inputs: every `tests/in/*.rs`, and every example of the workspace (so
/// each example kernel's NVVM IR is reviewed and, with the toolchain, goes through
/// libnvvm and ptxas). Returns (snapshot name, path, path as `file!()` gives it).
fn inputs() -> Vec<(String, PathBuf, String)> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = Vec::new();
    for (dir, prefix, file_prefix) in [
        (crate_dir.join("tests/in"), "", "tests/in/"),
        (crate_dir.join("../examples"), "example_", "examples/"),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            // Examples of the high-level operations (reduce, scan, #[vectorize]) write no
            // #[kernel] of their own: the runtime writes theirs (kernel-host's hl tests
            // put those through libnvvm and ptxas).
            .filter(|p| {
                prefix.is_empty()
                    || std::fs::read_to_string(p).is_ok_and(|text| text.contains("#[kernel"))
            })
            .collect();
        files.sort();
        for path in files {
            let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            inputs.push((
                format!("{prefix}{stem}"),
                path,
                format!("{file_prefix}{file_name}"),
            ));
        }
    }
    inputs
}

/// The `#[device]` functions the `cudajit` crate itself defines (its device RNG), as
/// `file!()` names them: any input may call them, as any user crate may.
fn library_devices() -> Result<Vec<offline::Found>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let file = "src/random.rs";
    let text = std::fs::read_to_string(root.join(file)).map_err(|e| e.to_string())?;
    offline::scan(&text, file)
}

/// The snapshot text: each kernel's compilation unit as the run-time compiler builds
/// it (`nvvm_ir_for_kernel`), followed by its panic sites as comments.
fn render(path: &Path, file: &str) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut found = offline::scan(&text, file)?;
    found.extend(library_devices()?);
    let instances = offline::instantiations(&text);
    let mut units = Vec::new();
    for (index, f) in found.iter().enumerate() {
        if f.kind != SourceKind::Kernel {
            continue;
        }
        let kernel = offline::kernel_source(index, &found)?;
        // A generic kernel: one unit per instantiation the file names.
        let kernels: Vec<_> = if f.item.sig.generics.params.is_empty() {
            vec![kernel]
        } else {
            let name = f.item.sig.ident.to_string();
            instances
                .iter()
                .filter(|i| i.kernel == name)
                .map(|i| kernel.instantiate(Box::leak(i.args.clone().into_boxed_slice())))
                .collect()
        };
        for kernel in kernels {
            let unit = nvvm_ir_for_kernel(kernel, &options_for(path)).map_err(|e| e.to_string())?;
            let mut ir = unit.nvvm_ir;
            for site in &unit.panic_sites {
                ir.push_str(&format!(
                    "; panic site {} in `{}` at {}:{}:{}: {}\n",
                    site.id, site.function, site.file, site.line, site.column, site.message
                ));
            }
            let name = if kernel.instance.is_empty() {
                unit.kernel_name
            } else {
                format!(
                    "{}::<{}>",
                    unit.kernel_name,
                    kernel_device::source::instance_text(kernel.instance)
                )
            };
            units.push((name, ir));
        }
    }
    if units.is_empty() {
        return Err("no #[kernel] in the file".into());
    }
    Ok(units)
}

/// The writer's options for an input: the defaults, except that an input named
/// `<name>_sm<NN>.rs` is written for that architecture (its native `bf16`
/// instructions); ptxas assembles every snapshot for sm_90.
fn options_for(path: &Path) -> Options {
    let stem = path.file_stem().unwrap().to_string_lossy();
    let arch = stem
        .rsplit_once("_sm")
        .and_then(|(_, digits)| digits.parse().ok());
    Options {
        arch,
        ..Options::default()
    }
}

#[test]
fn snapshots() {
    let bless = std::env::var_os("CUDAJIT_BLESS").is_some_and(|v| v == "1");
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/out/nvvm");
    let actual_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("snapshots/nvvm");
    std::fs::create_dir_all(&actual_dir).unwrap();
    let toolchain = common::toolchain();
    let mut failures = Vec::new();
    for (name, path, file) in inputs() {
        // The frontend must not panic either; a panic is reported like an error.
        let rendered = std::panic::catch_unwind(|| render(&path, &file))
            .unwrap_or_else(|_| Err("the pipeline panicked".to_string()));
        let units = match rendered {
            Ok(units) => units,
            Err(e) => {
                failures.push(format!("{name}: lowering failed: {e}"));
                continue;
            }
        };
        // One snapshot per input file: its kernels' units, one after another.
        let actual: String = units
            .iter()
            .map(|(kernel, ir)| format!("; ==== compilation unit of kernel `{kernel}` ====\n{ir}"))
            .collect();
        let expected_path = out_dir.join(format!("{name}.ll"));
        if bless {
            std::fs::write(&expected_path, &actual).unwrap();
        } else {
            let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if expected != actual {
                let actual_path = actual_dir.join(format!("{name}.ll"));
                std::fs::write(&actual_path, &actual).unwrap();
                failures.push(format!(
                    "{name}: output differs from {} (actual written to {}; CUDAJIT_BLESS=1 to accept)",
                    expected_path.display(),
                    actual_path.display()
                ));
            }
        }
        if let Some((nvvm, ptxas)) = &toolchain {
            for (kernel, ir) in &units {
                common::compile_and_assemble(nvvm, ptxas, &format!("{name}-{kernel}"), ir);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
