//! Sub-slices and dynamic shared memory as text: each range form gets only the panic
//! sites it can reach, with `ir::checks`'s words; unchecked functions get none, except
//! the dynamic shared memory check, which stays.

use crate::front::{lower_sources, tests::source};
use crate::ir::checks;
use crate::source::{FnSource, SourceKind};

fn sites(text: &str, bounds_check: bool) -> Vec<String> {
    let src: &'static FnSource = source(text, SourceKind::Kernel, 1);
    let src: &'static FnSource = Box::leak(Box::new(FnSource {
        options: crate::ir::FunctionOptions {
            bounds_check,
            ..src.options
        },
        ..*src
    }));
    let module = lower_sources(&[src]).expect("front accepts");
    let out = super::write_string(&module, &super::Options::default()).expect("writes");
    out.panic_sites.into_iter().map(|s| s.message).collect()
}

#[test]
fn each_range_form_reaches_only_its_own_failures() {
    let with = |body: &str| {
        sites(
            &format!("fn k(a: &[f32], i: usize, j: usize) {{ {body} }}"),
            true,
        )
    };
    assert_eq!(with("let s = &a[..];"), Vec::<String>::new());
    assert_eq!(with("let s = &a[i..];"), vec![checks::RANGE_START_MESSAGE]);
    assert_eq!(with("let s = &a[..j];"), vec![checks::RANGE_END_MESSAGE]);
    assert_eq!(with("let s = &a[..=j];"), vec![checks::RANGE_END_MESSAGE]);
    assert_eq!(
        with("let s = &a[i..j];"),
        vec![
            checks::RANGE_START_MESSAGE,
            checks::RANGE_END_MESSAGE,
            checks::RANGE_ORDER_MESSAGE
        ]
    );
    assert_eq!(
        with("let s = &a[i..=j];"),
        vec![
            checks::RANGE_START_MESSAGE,
            checks::RANGE_END_MESSAGE,
            checks::RANGE_ORDER_MESSAGE,
            checks::RANGE_END_MESSAGE
        ]
    );
    assert_eq!(
        with("let (l, r) = a.split_at(j);"),
        vec![checks::SPLIT_AT_MESSAGE]
    );
}

#[test]
fn unchecked_functions_keep_only_the_dynamic_shared_check() {
    let text = "fn k(a: &mut [f32], i: usize, j: usize) {
        let (l, r) = a.split_at_mut(j);
        let s = &mut l[i..=j];
        let mut smem = dynamic_shared();
        let t = smem.take::<f64>(i);
        s[0] = r[0] + t[0] as f32;
    }";
    assert_eq!(sites(text, false), vec![checks::DYNAMIC_SHARED_MESSAGE]);
    assert!(sites(text, true).len() > 5);
}

/// A device function's NVVM IR (its `define` through the closing brace) when called
/// from a kernel built with `kernel_bounds_check`: the device function inherits it.
fn device_fn_ir(kernel_bounds_check: bool) -> (String, usize) {
    let kernel = source(
        "fn k(a: &mut [f32], i: usize) { store(a, i); }",
        SourceKind::Kernel,
        1,
    );
    let kernel: &'static FnSource = Box::leak(Box::new(FnSource {
        options: crate::ir::FunctionOptions {
            bounds_check: kernel_bounds_check,
            ..kernel.options
        },
        ..*kernel
    }));
    let device = source(
        "fn store(a: &mut [f32], i: usize) { a[i] = 1.0; }",
        SourceKind::Device,
        2,
    );
    let module = lower_sources(&[kernel, device]).expect("front accepts");
    let out = super::write_string(&module, &super::Options::default()).expect("writes");
    let start = out
        .text
        .find("; device fn `store`")
        .expect("device fn emitted");
    let end = start + out.text[start..].find("\n}").expect("fn end");
    (out.text[start..end].to_string(), out.panic_sites.len())
}

#[test]
fn device_fn_inherits_the_kernels_bounds_check() {
    let (unchecked, sites) = device_fn_ir(false);
    assert!(!unchecked.contains("icmp ult i64"), "{unchecked}");
    assert!(!unchecked.contains("__cudajit_panic("), "{unchecked}");
    assert_eq!(sites, 0);
    let (checked, sites) = device_fn_ir(true);
    assert!(checked.contains("icmp ult i64"), "{checked}");
    assert!(checked.contains("__cudajit_panic("), "{checked}");
    assert_eq!(sites, 1);
}
