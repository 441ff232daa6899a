//! Full debug information (`#[kernel(debug = true)]`, libnvvm `-g`) names the Rust
//! locals and parameters for cuda-gdb: a `DILocalVariable` of the Rust type for each,
//! DWARF in the PTX that carries their names, and the slots kept in local memory so
//! that their values can be read at any line of their scope.

mod common;

use kernel_device::back::nvvm::debug_info::DebugLevel;
use kernel_device::nvvm::CompileOptions;

const SOURCE: &str = r#"
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Pair {
    lo: u32,
    hi: f32,
}

#[kernel(debug = true)]
fn scale_for_gdb(a: &[f32], out: &mut [f32], pairs: &[Pair], bias: i32) {
    let i = grid(1);
    if i < a.len() {
        let scaled = a[i] * 3.0;
        let mut window = [0u16; 4];
        window[1] = bias as u16;
        let flag = i % 2 == 0;
        out[i] = scaled + 1.0 + window[1] as f32 + if flag { pairs[0].hi } else { 0.0 };
    }
}

#[kernel(debug = true)]
fn stop_after_let(a: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < a.len() {
        let tripled = a[i] * 3.0;
        out[i] = tripled + 1.0;
    }
}

#[kernel]
fn plain(a: &mut [f32]) {
    let i = grid(1);
    a[i] = 1.0;
}
"#;

fn nvvm_ir(kernel: &str, debug: DebugLevel) -> String {
    common::kernel_nvvm_ir(SOURCE, "examples/debug_targets.rs", kernel, debug)
}

/// `kernel`'s PTX compiled as `#[kernel(debug = true)]` is (libnvvm `-g`), and
/// `ptxas`; `None` (after saying why) without the toolchain.
fn debug_ptx(kernel: &str) -> Option<(String, std::path::PathBuf)> {
    let ir = nvvm_ir(kernel, DebugLevel::Full);
    let (nvvm, ptxas) = common::toolchain()?;
    let options = CompileOptions {
        debug: true,
        opt_level: 0,
        ..CompileOptions::default()
    };
    let ptx = nvvm
        .compile(&ir, &options)
        .unwrap_or_else(|e| panic!("{e}\n{ir}"));
    Some((ptx, ptxas))
}

/// The metadata line defining the `DILocalVariable` called `name`.
fn variable<'t>(ir: &'t str, name: &str) -> Option<&'t str> {
    let needle = format!("!DILocalVariable(name: \"{name}\",");
    ir.lines().find(|l| l.contains(&needle))
}

/// The text of node `!N` of `ir`.
fn node<'t>(ir: &'t str, reference: &str) -> &'t str {
    let prefix = format!("{reference} = ");
    ir.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no node {reference}"))
}

/// The node a `type: !N` field of `line` names.
fn type_of<'t>(ir: &'t str, line: &str) -> &'t str {
    let at = line.find("type: !").expect("a type") + "type: ".len();
    let reference: String = line[at..]
        .chars()
        .take_while(|c| *c == '!' || c.is_ascii_digit())
        .collect();
    node(ir, &reference)
}

/// The bytes of the PTX's `.debug_info` section (DWARF names are NUL-terminated).
fn debug_info_text(ptx: &str) -> String {
    let start = ptx
        .find(".section\t.debug_info")
        .expect("a .debug_info section");
    let section = &ptx[start..];
    let end = section.find('}').unwrap_or(section.len());
    let mut bytes = Vec::new();
    for line in section[..end].lines() {
        if let Some(list) = line.trim().strip_prefix(".b8 ") {
            bytes.extend(list.split(',').filter_map(|b| b.trim().parse::<u8>().ok()));
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn locals_and_parameters_are_described_with_their_rust_types() {
    let ir = nvvm_ir("scale_for_gdb", DebugLevel::Full);
    for (name, arg, ty) in [
        ("a", Some(1), "name: \"&[f32]\""),
        ("out", Some(2), "name: \"&mut [f32]\""),
        ("pairs", Some(3), "name: \"&[Pair]\""),
        (
            "bias",
            Some(4),
            "!DIBasicType(name: \"i32\", size: 32, encoding: DW_ATE_signed)",
        ),
        (
            "i",
            None,
            "!DIBasicType(name: \"usize\", size: 64, encoding: DW_ATE_unsigned)",
        ),
        (
            "scaled",
            None,
            "!DIBasicType(name: \"f32\", size: 32, encoding: DW_ATE_float)",
        ),
        ("window", None, "DW_TAG_array_type"),
        ("flag", None, "encoding: DW_ATE_boolean"),
    ] {
        let line = variable(&ir, name).unwrap_or_else(|| panic!("no variable `{name}`\n{ir}"));
        match arg {
            Some(n) => assert!(line.contains(&format!("arg: {n},")), "{line}"),
            None => assert!(!line.contains("arg:"), "{line}"),
        }
        assert!(
            type_of(&ir, line).contains(ty),
            "{name}: {}",
            type_of(&ir, line)
        );
        let declared = ir.lines().any(|l| {
            l.contains("@llvm.dbg.declare(metadata") && l.contains(&format!("%{name}.addr,"))
        });
        assert!(declared, "no llvm.dbg.declare of `{name}`\n{ir}");
    }
    // The line a variable is declared on is its `let`'s.
    let scaled = variable(&ir, "scaled").unwrap();
    let want = SOURCE
        .lines()
        .position(|l| l.contains("let scaled"))
        .unwrap()
        + 1;
    assert!(scaled.contains(&format!("line: {want},")), "{scaled}");
    // A slice is its pointer and its length.
    let slice = type_of(&ir, variable(&ir, "a").unwrap());
    assert!(slice.contains("size: 128"), "{slice}");
    // The described slots are stored volatile: they stay in memory.
    assert!(ir.contains("store volatile float"), "{ir}");
}

#[test]
fn line_tables_and_plain_kernels_describe_no_variables() {
    // (`scale_for_gdb` asks for full information itself whenever any is on.)
    for (kernel, level) in [
        ("scale_for_gdb", DebugLevel::None),
        ("plain", DebugLevel::LineTables),
        ("plain", DebugLevel::None),
    ] {
        let ir = nvvm_ir(kernel, level);
        assert!(!ir.contains("DILocalVariable"), "{kernel} {level:?}\n{ir}");
        assert!(!ir.contains("llvm.dbg.declare"), "{kernel} {level:?}");
        assert!(!ir.contains("store volatile float"), "{kernel} {level:?}");
    }
}

#[test]
fn the_ptx_names_the_variables_and_ptxas_g_accepts_it() {
    let Some((ptx, ptxas)) = debug_ptx("scale_for_gdb") else {
        return;
    };
    assert!(ptx.contains(".target sm_90, debug"), "{ptx}");
    let names = debug_info_text(&ptx);
    for name in [
        "scale_for_gdb",
        "scaled",
        "window",
        "data_ptr",
        "length",
        "Pair",
    ] {
        assert!(
            names.contains(&format!("{name}\0")),
            "`{name}` not in .debug_info: {names:?}"
        );
    }
    // `scaled` is in the local depot, not only in a register for part of its lines.
    assert!(ptx.contains("st.volatile.f32"), "{ptx}");
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("scale_for_gdb.ptx");
    std::fs::write(&path, &ptx).unwrap();
    let output = std::process::Command::new(&ptxas)
        .args(["-g", "-arch=sm_90", "-o"])
        .arg(tmp.path().join("scale_for_gdb.cubin"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "ptxas -g: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A breakpoint on a line (its first address) stops after the lines above it have
/// run: the versioned run's guard, which checks `out[i]`'s bounds before the `let`,
/// carries the `if`'s line, not the store's.
#[test]
fn a_line_starts_after_the_let_above_it_is_stored() {
    let Some((ptx, _)) = debug_ptx("stop_after_let") else {
        return;
    };
    let line_of = |text: &str| SOURCE.lines().position(|l| l.contains(text)).unwrap() + 1;
    let stored = ptx.find("st.volatile.f32").expect("tripled's store");
    let store_line = line_of("out[i] = tripled");
    let first = ptx
        .find(&format!(".loc\t1 {store_line} "))
        .expect("the store line's .loc");
    assert!(
        stored < first,
        "line {store_line} starts before `tripled` is stored\n{ptx}"
    );
    // And the `let`'s store is the `let`'s line.
    let let_line = line_of("let tripled");
    let before_store = ptx[..stored].rfind(".loc").unwrap();
    assert!(
        ptx[before_store..].starts_with(&format!(".loc\t1 {let_line} ")),
        "{}",
        &ptx[before_store..stored]
    );
}
