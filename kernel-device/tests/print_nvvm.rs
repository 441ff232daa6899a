//! Print statements through the NVVM writer, libnvvm and ptxas: a module that prints
//! has the print buffer's global and appends records with atomics; one that does not
//! print has neither (no parameter, no instruction added).

mod common;

use kernel_device::back::nvvm::print::PRINT_BUFFER_SYMBOL;
use kernel_device::back::nvvm::Options;
use kernel_device::offline;

const SOURCE: &str = r#"
#[derive(Clone, Copy, Debug, DeviceCopy)]
struct Pair {
    a: i32,
    b: f64,
}

#[device]
fn report(p: Pair, flag: bool) {
    eprintln!("{p:?} {flag}");
}

#[kernel]
fn prints(x: &[f32], n: &[u64], h: &[f16]) {
    let i = grid(1);
    if i < x.len() {
        println!("{i}: {:>10.3} {:#x} {:?} {}", x[i], n[i], [x[i], 2.0], h[i]);
        report(Pair { a: i as i32, b: 0.5 }, i % 2 == 0);
        assert!(x[i] >= 0.0, "x[{}] = {} is negative", i, x[i]);
        assert_eq!(n[i] % 7, 3);
        if n[i] == 0 {
            panic!("zero at {i}");
        }
    }
}

#[kernel]
fn silent(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] = x[i] * 2.0;
    }
}
"#;

fn nvvm_ir(kernel: &str) -> String {
    let found = offline::scan(SOURCE, "print.rs").expect("parses");
    let k = found
        .iter()
        .position(|f| f.item.sig.ident == kernel)
        .expect("kernel present");
    let source = offline::kernel_source(k, &found).expect("unit");
    kernel_device::nvvm_ir_for_kernel(source, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .nvvm_ir
}

#[test]
fn a_printing_kernel_appends_records_and_compiles() {
    let ir = nvvm_ir("prints");
    assert!(
        ir.contains(&format!("@{PRINT_BUFFER_SYMBOL} = addrspace(1)")),
        "{ir}"
    );
    assert!(ir.contains("atomicrmw add i64*"), "{ir}");
    assert!(ir.contains("atomicrmw umin i64*"), "{ir}");
    let Some((nvvm, ptxas)) = common::toolchain() else {
        return;
    };
    let ptx = common::compile_and_assemble(&nvvm, &ptxas, "prints", &ir);
    assert!(ptx.contains(PRINT_BUFFER_SYMBOL), "{ptx}");
    assert!(
        ptx.contains("atom.global.add.u64") || ptx.contains("atom.add.u64"),
        "{ptx}"
    );
}

#[test]
fn a_kernel_that_does_not_print_has_no_print_buffer() {
    let ir = nvvm_ir("silent");
    assert!(!ir.contains(PRINT_BUFFER_SYMBOL), "{ir}");
    assert!(!ir.contains("atomicrmw add i64*"), "{ir}");
}
