//! Rust lines in the PTX: with line tables on, libnvvm writes `.file`/`.loc` naming
//! the kernel's Rust file and lines, and the code itself is unchanged (the PTX without
//! its debug directives is the same, and ptxas gives the same registers and code
//! size); with full debug information (`-g`), the PTX has DWARF sections.

mod common;

use std::path::Path;

use kernel_device::back::nvvm::debug_info::DebugLevel;
use kernel_device::nvvm::CompileOptions;

const SOURCE: &str = r#"
#[device]
fn smooth(a: &[f32], i: usize) -> f32 {
    let left = if i > 0 { a[i - 1] } else { a[i] };
    let right = if i + 1 < a.len() { a[i + 1] } else { a[i] };
    (left + a[i] + right) / 3.0
}

#[kernel]
fn stencil(a: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = smooth(a, i);
    }
}

#[kernel]
fn shared_sum(a: &[f32], out: &mut [f32]) {
    let tile = shared_array::<[f32; 256]>();
    let t = thread_idx().x as usize;
    let i = grid(1);
    tile[t] = if i < a.len() { a[i] } else { 0.0 };
    sync_threads();
    let mut stride = 128;
    while stride > 0 {
        if t < stride {
            tile[t] += tile[t + stride];
        }
        sync_threads();
        stride /= 2;
    }
    if t == 0 {
        out[block_idx().x as usize] = tile[0];
    }
}
"#;

fn nvvm_ir(kernel: &str, debug: DebugLevel) -> String {
    common::kernel_nvvm_ir(SOURCE, "src/kernels.rs", kernel, debug)
}

/// The PTX without its debug directives and sections.
/// The source line of the last `.loc` before the first `st.global`.
fn line_before_store(ptx: &str) -> Option<usize> {
    let mut line = None;
    for l in ptx.lines().map(str::trim_start) {
        if l.starts_with(".loc") {
            line = l.split_whitespace().nth(2).and_then(|n| n.parse().ok());
        } else if l.starts_with("st.global") {
            return line;
        }
    }
    None
}

fn code_only(ptx: &str) -> String {
    let mut out = Vec::new();
    let mut in_section = false;
    for line in ptx.lines() {
        let t = line.trim_start();
        if t.starts_with(".section") {
            in_section = true;
        }
        if in_section {
            if t.starts_with('}') {
                in_section = false;
            }
            continue;
        }
        let debug_only = [
            ".loc",
            ".file",
            "$L__func_begin",
            "$L__func_end",
            "$L__tmp",
            "//",
        ];
        if t.is_empty() || debug_only.iter().any(|d| t.starts_with(d)) {
            continue;
        }
        // Line tables mark the target `debug`; the code is what must not change.
        if t.starts_with(".target") {
            out.push(t.trim_end_matches(", debug"));
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// The machine code of each kernel in a cubin: its `.text.<name>` ELF sections.
fn machine_code(cubin: &[u8]) -> Vec<(String, Vec<u8>)> {
    let u16_at = |o: usize| u16::from_le_bytes(cubin[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(cubin[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(cubin[o..o + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3A), u16_at(0x3C), u16_at(0x3E));
    let header = |i: usize| shoff + i * shentsize;
    let names = u64_at(header(shstrndx) + 24);
    let mut out = Vec::new();
    for i in 0..shnum {
        let h = header(i);
        let name_at = names + u32_at(h);
        let end = cubin[name_at..].iter().position(|b| *b == 0).unwrap();
        let name = String::from_utf8_lossy(&cubin[name_at..name_at + end]).to_string();
        if name.starts_with(".text.") {
            let (offset, size) = (u64_at(h + 24), u64_at(h + 32));
            out.push((name, cubin[offset..offset + size].to_vec()));
        }
    }
    out
}

/// ptxas -v's resource line for `ptx` (registers, stack, shared memory) and the
/// kernels' machine code.
fn resources(ptxas: &Path, name: &str, ptx: &str) -> (String, Vec<(String, Vec<u8>)>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{name}.ptx"));
    std::fs::write(&path, ptx).unwrap();
    let output = std::process::Command::new(ptxas)
        .args(["-arch=sm_90", "-v", "-o"])
        .arg(dir.path().join(format!("{name}.cubin")))
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stderr).to_string();
    let cubin = std::fs::read(dir.path().join(format!("{name}.cubin"))).unwrap();
    let used: Vec<&str> = text.lines().filter(|l| l.contains("Used")).collect();
    (used.join("; "), machine_code(&cubin))
}

#[test]
fn line_tables_name_the_rust_lines_and_leave_the_code_alone() {
    let plain_ir = nvvm_ir("stencil", DebugLevel::None);
    let lines_ir = nvvm_ir("stencil", DebugLevel::LineTables);
    assert!(!plain_ir.contains("!dbg"));
    assert!(
        lines_ir.contains("emissionKind: DebugDirectivesOnly"),
        "{lines_ir}"
    );
    assert!(lines_ir.contains("!DIFile(filename: \"kernels.rs\", directory: \"src\")"));
    let Some((nvvm, ptxas)) = common::toolchain() else {
        return;
    };
    for kernel in ["stencil", "shared_sum"] {
        let plain = nvvm
            .compile(
                &nvvm_ir(kernel, DebugLevel::None),
                &CompileOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let ir = nvvm_ir(kernel, DebugLevel::LineTables);
        let with_lines = nvvm
            .compile(
                &ir,
                &CompileOptions {
                    line_info: true,
                    ..CompileOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{e}\n{ir}"));
        assert!(with_lines.contains(".file"), "{with_lines}");
        assert!(with_lines.contains("kernels.rs"), "{with_lines}");
        let locs = with_lines
            .lines()
            .filter(|l| l.trim_start().starts_with(".loc"))
            .count();
        assert!(locs >= 5, "{kernel}: {locs} .loc lines\n{with_lines}");
        // The global store is the assignment's line, not the function's (what
        // compute-sanitizer names for a bad store).
        let statement = match kernel {
            "stencil" => "out[i] = smooth(a, i);",
            _ => "out[block_idx().x as usize] = tile[0];",
        };
        let want = SOURCE.lines().position(|l| l.contains(statement)).unwrap() + 1;
        assert_eq!(
            line_before_store(&with_lines),
            Some(want),
            "{kernel}: the .loc before st.global\n{with_lines}"
        );
        // Lines of the device function and of the kernel both appear (the call is
        // inlined: its lines are the device function's).
        assert_eq!(
            code_only(&plain),
            code_only(&with_lines),
            "{kernel}: the code changed"
        );
        let (a, code_a) = resources(&ptxas, kernel, &plain);
        let (b, code_b) = resources(&ptxas, &format!("{kernel}_lines"), &with_lines);
        assert_eq!(a, b, "{kernel}: ptxas resources differ");
        assert!(!code_a.is_empty());
        assert_eq!(code_a, code_b, "{kernel}: the SASS differs");
        let bytes: usize = code_a.iter().map(|(_, c)| c.len()).sum();
        eprintln!("{kernel}: {locs} .loc lines; {a}; SASS identical ({bytes} bytes)");
    }
}

#[test]
fn full_debug_information_compiles_with_g() {
    let ir = nvvm_ir("stencil", DebugLevel::Full);
    assert!(ir.contains("emissionKind: FullDebug"), "{ir}");
    let Some((nvvm, ptxas)) = common::toolchain() else {
        return;
    };
    let ptx = nvvm
        .compile(
            &ir,
            &CompileOptions {
                debug: true,
                opt_level: 0,
                ..CompileOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}\n{ir}"));
    assert!(ptx.contains(".loc"), "{ptx}");
    assert!(ptx.contains(".section"), "{ptx}");
    common::assemble(&ptxas, "stencil_g", &ptx);
}
