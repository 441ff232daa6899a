//! Snapshot tests, naga style: each `tests/in/<name>.rs` holds `#[kernel]`/`#[device]`
//! functions as plain text; the whole file is lowered (frontend → validator → NVVM IR
//! writer) and compared with `tests/out/nvvm/<name>.ll`. A difference fails the test
//! and the actual output is written under the target's tmp dir. `CUDAJIT_BLESS=1`
//! rewrites the expected files instead. With the toolchain configured (see
//! `common::toolchain`) every snapshot also goes through libnvvm and ptxas.

mod common;

use std::path::{Path, PathBuf};

use kernel_device::back::nvvm::{write_string, Options};
use kernel_device::source::{render_preserving_lines, FnSource, SourceKind};
use kernel_device::{front, valid};
use quote::ToTokens;

/// The functions of one input file as the macros would embed them.
fn sources_of(path: &Path) -> Vec<&'static FnSource> {
    let text = std::fs::read_to_string(path).unwrap();
    let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rel: &'static str = Box::leak(
        format!("tests/in/{}", path.file_name().unwrap().to_string_lossy()).into_boxed_str(),
    );
    let mut items = Vec::new();
    for item in file.items {
        let syn::Item::Fn(mut item) = item else {
            continue;
        };
        let mut kind = None;
        let (mut bounds_check, mut fast_math) = (true, false);
        for attr in &item.attrs {
            let name = attr.path().segments.last().map(|s| s.ident.to_string());
            match name.as_deref() {
                Some("kernel") => kind = Some(SourceKind::Kernel),
                Some("device") => kind = Some(SourceKind::Device),
                _ => continue,
            }
            if let syn::Meta::List(list) = &attr.meta {
                let args = list.tokens.to_string().replace(' ', "");
                bounds_check = !args.contains("boundscheck=false");
                fast_math = args.contains("fastmath=true");
            }
        }
        let Some(kind) = kind else { continue };
        item.attrs.clear();
        item.vis = syn::Visibility::Inherited;
        let (text, line) = render_preserving_lines(item.to_token_stream());
        let name: &'static str = Box::leak(item.sig.ident.to_string().into_boxed_str());
        items.push((
            name,
            kind,
            &*Box::leak(text.into_boxed_str()),
            line,
            bounds_check,
            fast_math,
        ));
    }
    // Kernels first (each compilation unit starts at its root), then device functions;
    // every function may call every device function of the file.
    items.sort_by_key(|i| i.1 != SourceKind::Kernel);
    let devices: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].1 == SourceKind::Device)
        .collect();
    let mut leaked: Vec<&'static FnSource> = Vec::new();
    // Device functions first so their statics exist when the kernels name them.
    let mut device_statics: Vec<&'static FnSource> = Vec::new();
    for &i in &devices {
        let (name, kind, text, line, bounds_check, fast_math) = items[i];
        device_statics.push(Box::leak(Box::new(FnSource {
            name,
            kind,
            text,
            file: rel,
            line,
            bounds_check,
            fast_math,
            deps: &[],
        })));
    }
    let deps: &'static [&'static FnSource] = Box::leak(device_statics.clone().into_boxed_slice());
    for (name, kind, text, line, bounds_check, fast_math) in items {
        if kind == SourceKind::Device {
            continue;
        }
        leaked.push(Box::leak(Box::new(FnSource {
            name,
            kind,
            text,
            file: rel,
            line,
            bounds_check,
            fast_math,
            deps,
        })));
    }
    leaked.extend(device_statics);
    leaked
}

fn inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/in");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

/// The snapshot text: the module, then its panic sites as comments.
fn render(path: &Path) -> Result<String, String> {
    let sources = sources_of(path);
    let module = front::lower_sources(&sources).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    valid::validate(&module).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let output = write_string(&module, &Options::default()).map_err(|e| e.to_string())?;
    let mut text = output.text;
    for site in &output.panic_sites {
        text.push_str(&format!(
            "; panic site {} in `{}` at {}:{}:{}: {}\n",
            site.id, site.function, site.file, site.line, site.column, site.message
        ));
    }
    Ok(text)
}

#[test]
fn snapshots() {
    let bless = std::env::var_os("CUDAJIT_BLESS").is_some_and(|v| v == "1");
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/out/nvvm");
    let actual_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("snapshots/nvvm");
    std::fs::create_dir_all(&actual_dir).unwrap();
    let toolchain = common::toolchain();
    let mut failures = Vec::new();
    for input in inputs() {
        let name = input.file_stem().unwrap().to_string_lossy().into_owned();
        // The frontend must not panic either; a panic is reported like an error.
        let rendered = std::panic::catch_unwind(|| render(&input))
            .unwrap_or_else(|_| Err("the pipeline panicked".to_string()));
        let actual = match rendered {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{name}: lowering failed: {e}"));
                continue;
            }
        };
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
            common::compile_and_assemble(nvvm, ptxas, &name, &actual);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
