//! Sub-slices, `split_at` and dynamic shared memory: their types, and each misuse
//! rejected at its token.

use super::tests::source;
use super::*;
use crate::ir::{ExprKind, Function, ScalarType, Type};
// The validator sits above the front end; only these tests reach up to it (the
// attribute says so to `cargo xtask cycles`, which layers what the crate is built from).
#[cfg(test)]
use crate::valid::validate;

fn lower(texts: &[(&str, SourceKind)]) -> Result<ir::Module, Vec<SourceError>> {
    let sources: Vec<&FnSource> = texts.iter().map(|(t, k)| source(t, *k, 1)).collect();
    lower_sources(&sources)
}

fn kernel(text: &str) -> Function {
    match lower(&[(text, SourceKind::Kernel)]) {
        Ok(m) => m.functions.iter().next().map(|(_, f)| f.clone()).unwrap(),
        Err(e) => panic!("unexpected errors: {e:#?}"),
    }
}

fn local(f: &Function, name: &str) -> Type {
    f.locals
        .iter()
        .filter(|(_, l)| l.name == name)
        .last()
        .map(|(_, l)| l.ty.clone())
        .unwrap_or_else(|| panic!("no local `{name}`"))
}

fn slice(elem: ScalarType, mutable: bool) -> Type {
    Type::Slice { elem, mutable }
}

/// The one diagnostic of `check_item` on a kernel: its text and 1-based column on `line`.
fn one_error(text: &str) -> (String, usize, usize) {
    let item: syn::ItemFn = syn::parse_str(text).expect("test source parses");
    let d = check_item(&item, SourceKind::Kernel);
    assert_eq!(
        d.len(),
        1,
        "{text}: {:#?}",
        d.iter().map(|d| d.text()).collect::<Vec<_>>()
    );
    assert!(d[0].hint.is_some(), "no hint: {}", d[0].message);
    let start = d[0].span.start();
    (d[0].message.clone(), start.line, start.column + 1)
}

#[test]
fn every_range_form_gives_a_slice_of_the_borrow_s_mutability() {
    let f = kernel(
        "fn k(a: &[f32], m: &mut [u32], i: usize, j: usize) {
            let r = &a[i..j];
            let from = &a[i..];
            let to = &a[..j];
            let full = &a[..];
            let incl = &a[i..=j];
            let to_incl = &a[..=3];
            let tail = &mut m[1..];
            let view = &m[..2];
            let nested = &tail[1..][..1];
            let x = a[1..][0];
            let n = a[2..].len();
            m[1..][0] = 5;
        }",
    );
    for name in ["r", "from", "to", "full", "incl", "to_incl"] {
        assert_eq!(local(&f, name), slice(ScalarType::F32, false), "{name}");
    }
    assert_eq!(local(&f, "tail"), slice(ScalarType::U32, true));
    assert_eq!(local(&f, "view"), slice(ScalarType::U32, false));
    assert_eq!(local(&f, "nested"), slice(ScalarType::U32, false));
    assert_eq!(local(&f, "x"), Type::Scalar(ScalarType::F32));
    assert_eq!(local(&f, "n"), Type::Scalar(ScalarType::Usize));
    let inclusive = f
        .exprs
        .iter()
        .filter(|(_, e)| {
            matches!(
                e.kind,
                ExprKind::SubSlice {
                    inclusive: true,
                    ..
                }
            )
        })
        .count();
    assert_eq!(inclusive, 2);
}

#[test]
fn literal_bounds_become_usize() {
    let f = kernel("fn k(a: &[f32]) { let i = 2; let s = &a[i..4]; }");
    assert_eq!(local(&f, "i"), Type::Scalar(ScalarType::Usize));
}

#[test]
fn split_at_destructures_into_two_views() {
    let f = kernel(
        "fn k(a: &[i32], m: &mut [f64], mid: usize) {
            let (lo, hi) = a.split_at(mid);
            let (l, r) = m.split_at_mut(2);
            let (x, y) = m.split_at(1);
            let pair = a[1..].split_at(1);
        }",
    );
    assert_eq!(local(&f, "lo"), slice(ScalarType::I32, false));
    assert_eq!(local(&f, "hi"), slice(ScalarType::I32, false));
    assert_eq!(local(&f, "l"), slice(ScalarType::F64, true));
    assert_eq!(local(&f, "r"), slice(ScalarType::F64, true));
    assert_eq!(local(&f, "y"), slice(ScalarType::F64, false));
    assert_eq!(
        local(&f, "pair"),
        Type::Tuple(vec![slice(ScalarType::I32, false); 2])
    );
}

#[test]
fn sub_slices_pass_to_device_functions_and_validate() {
    let module = lower(&[
        (
            "fn k(a: &[f32], out: &mut [f32]) {
                let (lo, hi) = out.split_at_mut(4);
                scale(lo, sum(&a[..4]));
                scale(&mut hi[1..], sum(&a[4..=7]));
            }",
            SourceKind::Kernel,
        ),
        (
            "fn sum(v: &[f32]) -> f32 { let mut s = 0.0; for i in 0..v.len() { s += v[i]; } s }",
            SourceKind::Device,
        ),
        (
            "fn scale(v: &mut [f32], k: f32) { for i in 0..v.len() { v[i] *= k; } }",
            SourceKind::Device,
        ),
    ])
    .expect("lowers");
    validate(&module).expect("validates");
}

#[test]
fn dynamic_shared_cursor_carves_mutable_slices() {
    let f = kernel(
        "fn k(n: usize) {
            let mut smem = dynamic_shared();
            let a = smem.take::<f32>(n);
            let b: &mut [u64] = smem.take::<u64>(4);
            let flags = smem.take::<bool>(n);
            a[0] = 1.0;
        }",
    );
    assert_eq!(local(&f, "smem"), Type::DynamicShared);
    assert_eq!(local(&f, "a"), slice(ScalarType::F32, true));
    assert_eq!(local(&f, "b"), slice(ScalarType::U64, true));
    assert_eq!(local(&f, "flags"), slice(ScalarType::Bool, true));
    let mut m = ir::Module::default();
    m.functions.append(f);
    validate(&m).expect("validates");
}

#[test]
fn mutable_view_of_a_shared_slice_is_rejected_at_the_borrow() {
    let (msg, line, col) = one_error("fn k(a: &[f32]) {\n    let s = &mut a[1..];\n}");
    assert!(
        msg.contains("cannot borrow a sub-slice of `a` as mutable"),
        "{msg}"
    );
    assert_eq!((line, col), (2, 13));
    let (msg, _, col) = one_error("fn k(a: &[f32]) { let (x, y) = a.split_at_mut(2); }");
    assert!(msg.contains("cannot borrow `a` as mutable"), "{msg}");
    assert_eq!(col, 34);
}

#[test]
fn slice_misuse_is_rejected_at_its_token() {
    let (msg, _, col) = one_error("fn k(a: &[f32], i: i32) { let s = &a[i..]; }");
    assert!(
        msg.contains("slice ranges are of type `usize`, found `i32`"),
        "{msg}"
    );
    assert_eq!(col, 38);
    let (msg, _, col) = one_error("fn k(a: &[f32]) { let s = a[1..]; }");
    assert!(msg.contains("a sub-slice must be borrowed"), "{msg}");
    assert_eq!(col, 29);
    let (msg, _, col) = one_error("fn k(x: f32) { let s = &x[1..]; }");
    assert!(
        msg.contains("cannot take a sub-slice of a value of type `f32`"),
        "{msg}"
    );
    assert_eq!(col, 25);
    let (msg, _, _) = one_error("fn k(a: &[f32]) { let s = &a; }");
    assert!(
        msg.contains("only supported to arrays and sub-slices"),
        "{msg}"
    );
    let (msg, _, col) = one_error("fn k(x: u32) { let (a, b) = x.split_at(1); }");
    assert!(
        msg.contains("no method named `split_at` found for type `u32`"),
        "{msg}"
    );
    assert_eq!(col, 31);
}

#[test]
fn dynamic_shared_misuse_is_rejected_at_its_token() {
    let (msg, _, col) =
        one_error("fn k() { let smem = dynamic_shared(); let a = smem.take::<f32>(4); }");
    assert!(msg.contains("cannot borrow `smem` as mutable"), "{msg}");
    assert_eq!(col, 47);
    let (msg, _, col) =
        one_error("fn k() { let mut smem = dynamic_shared(); let a = smem.take(4); }");
    assert!(msg.contains("`take` needs the element type"), "{msg}");
    assert_eq!(col, 56);
    let (msg, _, col) = one_error(
        "fn k() { let mut smem = dynamic_shared(); let a = smem.take::<(f32, f32)>(4); }",
    );
    assert!(
        msg.contains("dynamic shared memory holds scalars only"),
        "{msg}"
    );
    assert_eq!(col, 63);
    let (msg, _, _) =
        one_error("fn k() { let mut smem = dynamic_shared(); let a = smem.take::<f32>(4i32); }");
    assert!(msg.contains("expected `usize`"), "{msg}");
    let (msg, _, col) = one_error("fn k() { let smem = dynamic_shared(1); }");
    assert!(msg.contains("`dynamic_shared` takes no arguments"), "{msg}");
    assert_eq!(col, 36);
}

#[test]
fn arrays_local_and_shared_are_sliced_and_split() {
    let src = "fn k(out: &mut [f32], n: usize) {
            let tile = shared_array::<[f32; 256]>();
            let grid2: &mut [[f32; 33]; 32] = shared_array();
            let mut acc = [0.0f32; 8];
            let fixed = [1u32, 2, 3];
            let head = &tile[..n];
            let mid = &mut tile[2..10];
            let row = &mut grid2[3][1..];
            let part = &mut acc[1..=3];
            let view = &fixed[1..];
            let (lo, hi) = tile.split_at_mut(128);
            let (a, b) = acc.split_at(4);
            let x = tile[1..][0];
            let m = grid2[2][..4].len();
        }";
    let f = kernel(src);
    use ScalarType::*;
    for (name, ty) in [
        ("head", slice(F32, false)),
        ("mid", slice(F32, true)),
        ("row", slice(F32, true)),
        ("part", slice(F32, true)),
        ("view", slice(U32, false)),
        ("lo", slice(F32, true)),
        ("hi", slice(F32, true)),
        ("a", slice(F32, false)),
        ("b", slice(F32, false)),
        ("x", Type::Scalar(F32)),
        ("m", Type::Scalar(Usize)),
    ] {
        assert_eq!(local(&f, name), ty, "{name}");
    }
    let module = lower(&[(src, SourceKind::Kernel)]).unwrap();
    validate(&module).expect("validates");
}

#[test]
fn mutable_views_of_unwritable_arrays_are_refused_with_rustc_s_reason() {
    let (msg, _, col) = one_error("fn k() { let acc = [0.0f32; 8]; let s = &mut acc[1..]; }");
    assert!(
        msg.contains(
            "cannot borrow a sub-slice of `acc` as mutable, as `acc` is not declared as mutable"
        ),
        "{msg}"
    );
    assert_eq!(col, 41);
    let (msg, _, _) =
        one_error("fn k() { let acc = [0.0f32; 8]; let (l, r) = acc.split_at_mut(2); }");
    assert!(msg.contains("`acc` is not declared as mutable"), "{msg}");
    let (msg, _, _) = one_error("fn k(out: &mut [f32]) { let acc = [[0.0f32; 4]; 2]; out[0] = acc[1][..2][0]; let r = &mut acc[1][1..]; }");
    assert!(msg.contains("as `acc` is not declared as mutable"), "{msg}");
}
