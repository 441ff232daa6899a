//! `check_item` tests: each rejection names the construct, gives a hint, and points at
//! the offending token; several errors in one function are all reported.

use super::*;

fn check(text: &str, kind: SourceKind) -> Vec<Diagnostic> {
    let item: syn::ItemFn = syn::parse_str(text).expect("test source parses");
    check_item(&item, kind)
}

/// 1-based line and column of the first occurrence of `needle` in `text`.
fn position(text: &str, needle: &str) -> (usize, usize) {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in source"));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
    (line, column)
}

/// Asserts exactly one diagnostic, containing `message`, with a hint, at `needle`.
#[track_caller]
fn rejects(text: &str, kind: SourceKind, needle: &str, message: &str) {
    rejects_with(text, kind, needle, message, true)
}

/// Like `rejects`, for rustc-style type errors that may come without a hint.
#[track_caller]
fn rejects_type(text: &str, needle: &str, message: &str) {
    rejects_with(text, SourceKind::Kernel, needle, message, false)
}

#[track_caller]
fn rejects_with(text: &str, kind: SourceKind, needle: &str, message: &str, hint: bool) {
    let d = check(text, kind);
    assert_eq!(
        d.len(),
        1,
        "expected one diagnostic for {text}, got {:#?}",
        d.iter().map(|d| d.text()).collect::<Vec<_>>()
    );
    assert!(
        d[0].message.contains(message),
        "message {:?} lacks {message:?}",
        d[0].message
    );
    assert!(!hint || d[0].hint.is_some(), "no hint: {:?}", d[0].message);
    let start = d[0].span.start();
    assert_eq!(
        (start.line, start.column + 1),
        position(text, needle),
        "span of {:?}",
        d[0].message
    );
}

#[track_caller]
fn rejects_kernel(text: &str, needle: &str, message: &str) {
    rejects(text, SourceKind::Kernel, needle, message)
}

#[track_caller]
fn accepts(text: &str, kind: SourceKind) {
    let d = check(text, kind);
    assert!(
        d.is_empty(),
        "unexpected: {:#?}",
        d.iter().map(|d| d.text()).collect::<Vec<_>>()
    );
}

#[test]
fn accepts_the_subset() {
    accepts("fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {\n let i = grid(1);\n if i < c.len() { c[i] = square(a[i]) + b[i]; }\n}", SourceKind::Kernel);
    accepts("fn square(x: f32) -> f32 { x * x }", SourceKind::Device);
    accepts("fn k(x: f32, a: &[u32]) { println!(\"{x} {:?}\", a[0]); eprint!(\"{:>w$}\", x, w = 4); assert!(x > 0.0, \"x = {}\", x); assert_eq!(a[0], 1); debug_assert_ne!(a[0], 2); if x > 5.0 { panic!(\"big {}\", x) } }", SourceKind::Kernel);
    accepts("fn k(mut n: u32, out: &mut [u32]) { let mut s = 0; while n > 0 { s += n % 10; n /= 10; } out[0] = s; let t = helper(out, 3).max(2.0); }", SourceKind::Kernel);
    accepts(
        "fn d(x: f64) -> (f64, bool) { let y = f64::sqrt(x).mul_add(2.0, 1.0); (y, y > 1.0) }",
        SourceKind::Device,
    );
    accepts(
        "fn k(a: &mut [i64]) { let v = a[0].abs().min(4); a[1] = v << 2u8; a[2] = !v ^ -1; }",
        SourceKind::Kernel,
    );
}

#[test]
fn heap_types_and_macros() {
    rejects_kernel(
        "fn k() {\n    let v = Vec::new();\n}",
        "Vec",
        "`Vec` is not supported in kernels: device code cannot allocate on the heap",
    );
    rejects_kernel(
        "fn k() {\n    let v = vec![1, 2];\n}",
        "vec",
        "`vec!` is not supported in kernels",
    );
    rejects_kernel(
        "fn k() {\n    let b = Box::new(1);\n}",
        "Box",
        "`Box` is not supported",
    );
    rejects_kernel(
        "fn k() {\n    let s = format!(\"{}\", 1);\n}",
        "format",
        "`format!` is not supported",
    );
    rejects_kernel(
        "fn k(x: f32) {\n    println!(\"{}\", x, 2.0);\n}",
        "2.0",
        "argument never used",
    );
    rejects_kernel(
        "fn k(x: f32) {\n    println!(\"{} }\", x);\n}",
        "\"{} }\"",
        "invalid format string: unmatched `}` found",
    );
    rejects_kernel(
        "fn k(x: f32) {\n    dbg!(x);\n}",
        "dbg",
        "`dbg!` is not supported",
    );
    rejects_kernel(
        "fn k(x: f32) {\n    let s: String = 1;\n}",
        "String",
        "`String` is not supported",
    );
    rejects_kernel(
        "fn k(x: u32) {\n    assert_eq!(x);\n}",
        "assert_eq",
        "`assert_eq!` requires two arguments to compare",
    );
}

#[test]
fn unsupported_expressions() {
    rejects_kernel(
        "fn k() {\n    let f = |x: f32| x;\n}",
        "|x",
        "closures are not supported",
    );
    rejects_kernel(
        "fn k(c: &mut [f32]) {\n    unsafe { c[0] = 1.0; }\n}",
        "unsafe",
        "`unsafe` blocks are not supported",
    );
    rejects_kernel(
        "fn k(n: usize) {\n    let a = [0u8; n];\n}",
        "n]",
        "an array length must be a constant expression",
    );
    rejects_kernel(
        "fn k(n: u32) {\n    let r = &n;\n}",
        "&n",
        "references are only supported to arrays and sub-slices in kernel bodies",
    );
    rejects_kernel(
        "fn k(n: u32) {\n    let r = *n;\n}",
        "*n",
        "dereference operator",
    );
    rejects_kernel(
        "fn k() {\n    let s = \"hi\";\n}",
        "\"hi\"",
        "string literals are not supported",
    );
    rejects_kernel(
        "fn k() {\n    let c = 'x';\n}",
        "'x'",
        "character literals are not supported",
    );
    rejects_kernel(
        "fn k() {\n    let s = b\"hi\";\n}",
        "b\"hi\"",
        "string literals are not supported",
    );
    rejects_kernel(
        "fn k() {\n    let x = f()?;\n}",
        "?",
        "the `?` operator is not supported",
    );
    rejects_kernel(
        "fn k() {\n    let x = async { 1 };\n}",
        "async",
        "`async` blocks are not supported",
    );
    rejects_kernel(
        "fn k(p: &[Point]) {\n    let q = Point { x: 1, ..p[0] };\n}",
        "p[0]",
        "struct update syntax (`..base`) is not supported",
    );
    rejects_kernel(
        "fn k() {\n    let x = 1i128;\n}",
        "1i128",
        "`i128` is not supported",
    );
    rejects_kernel(
        "fn k() {\n    let x: u128 = 1;\n}",
        "u128",
        "`u128` is not supported",
    );
    rejects_kernel(
        "fn k() {\n    fn inner() {}\n}",
        "inner",
        "nested functions are not supported",
    );
    rejects_kernel(
        "fn k() {\n    let x = Some(1);\n}",
        "Some",
        "`Some` is not supported",
    );
    rejects_kernel(
        "fn k() {\n    std::mem::drop(1);\n}",
        "std",
        "`std::mem::drop` is not supported in kernels",
    );
}

#[test]
fn unsupported_methods() {
    rejects_kernel(
        "fn k(a: &[f32]) {\n    let s = a.iter();\n}",
        "iter",
        "method `iter` is not supported",
    );
    rejects_kernel(
        "fn k(x: f32) {\n    let y = x.foo();\n}",
        "foo",
        "method `foo` is not supported",
    );
    rejects_kernel(
        "fn k(x: u32) {\n    let y = x.sqrt();\n}",
        "sqrt",
        "no method named `sqrt` found for type `u32`",
    );
    rejects_kernel(
        "fn k(x: u32) {\n    let y = x.abs();\n}",
        "abs",
        "no method named `abs` found for type `u32`",
    );
    rejects_kernel(
        "fn k() {\n    let x = 2.0;\n    let y = x.sqrt();\n}",
        "sqrt",
        "can't call method `sqrt` on ambiguous numeric type `{float}`",
    );
    rejects_kernel(
        "fn k(x: f32) {\n    let y = f32::frobnicate(x);\n}",
        "f32::frob",
        "function `f32::frobnicate` is not supported",
    );
    rejects_kernel(
        "fn k(a: &[f32]) {\n    for x in a.iter().rev() {}\n}",
        "a.iter",
        "only iterate over integer ranges",
    );
}

#[test]
fn range_adapters() {
    accepts(
        "fn k(n: u32, s: usize) { for i in (0..n).rev() {} for i in (0..=n).step_by(s) {} for i in (1..n).rev().step_by(2) {} for i in ((0..n)).step_by(3) {} }",
        SourceKind::Kernel,
    );
    rejects_kernel(
        "fn k(n: u32) {\n    for i in (0..n).step_by(2).rev() {}\n}",
        "rev",
        "`.step_by(n).rev()` is not supported",
    );
    let d = check(
        "fn k(n: u32) { for i in (0..n).step_by(2).rev() {} }",
        SourceKind::Kernel,
    );
    assert!(
        d[0].hint
            .as_deref()
            .unwrap_or("")
            .contains(".rev().step_by(n)"),
        "{:?}",
        d[0].hint
    );
    rejects_kernel(
        "fn k(n: u32) {\n    for i in (0..n).skip(1) {}\n}",
        "skip",
        "`.skip()` is not supported on a `for` loop's range",
    );
    rejects_kernel(
        "fn k(n: u32) {\n    for i in (0..n).rev().rev() {}\n}",
        "rev() {}",
        "chain of range adapters is not supported",
    );
    rejects_kernel(
        "fn k(n: u32) {\n    for i in (0..n).step_by() {}\n}",
        "step_by",
        "wrong arguments to `.step_by`",
    );
    rejects_kernel(
        "fn k(n: u32) {\n    for i in (0..).step_by(2) {}\n}",
        "0..",
        "need a bounded range",
    );
    // The step is a usize whatever the range's type, as in std.
    rejects_type(
        "fn k(n: u32) {\n    for i in (0..n).step_by(n) {}\n}",
        "n) {}",
        "mismatched types: expected `usize`, found `u32`",
    );
    rejects_type(
        "fn k(n: u32) {\n    for i in (0..n).step_by(2.0) {}\n}",
        "2.0",
        "mismatched types: expected `usize`",
    );
}

#[test]
fn signatures() {
    rejects_kernel(
        "fn k(a: &[f32]) -> f32 {\n    a[0]\n}",
        "f32 {",
        "a kernel cannot return a value",
    );
    rejects_kernel("fn k(v: Vec<f32>) {}", "Vec", "`Vec` is not supported");
    rejects_kernel("fn k(v: &&[f32]) {}", "&&", "references to references");
    rejects_kernel("fn k(s: String) {}", "String", "`String` is not supported");
    rejects_kernel("fn k(x: &f32) {}", "&f32", "references to scalars (`&f32`)");
    // A named type by value (`p: Point`) may be a `#[derive(DeviceCopy)]` enum: the
    // launcher's `KernelValue` bound decides (tests/ui/types_structs/by_value_kernel_param).
    rejects_kernel(
        "fn k<T>(x: T) {}",
        "T>",
        "type parameter `T` has no cudajit numeric bound",
    );
    rejects_kernel(
        "fn k(x: f32) where f32: Copy {}",
        "f32: Copy",
        "`where` clause may only bound its type parameters",
    );
    rejects_kernel("const fn k() {}", "const", "`const fn` is not supported");
    rejects_kernel("async fn k() {}", "async", "`async fn` is not supported");
    rejects_kernel("unsafe fn k() {}", "unsafe", "`unsafe fn` is not supported");
    rejects_kernel(
        "extern \"C\" fn k() {}",
        "extern",
        "`extern fn` is not supported",
    );
    rejects_kernel(
        "fn k(p: *const f32) {}",
        "*const",
        "raw pointers are not supported",
    );
    rejects_kernel(
        "fn k(a: [f32; 4]) {}",
        "[f32",
        "arrays cannot be passed to a kernel by value",
    );
    rejects_kernel("fn k(x: i128) {}", "i128", "`i128` is not supported");
    rejects_kernel("fn k(x: &dyn Fn()) {}", "&dyn", "only slice references");
    rejects_kernel(
        "fn k(x: impl Copy) {}",
        "impl",
        "trait objects and `impl Trait` are not supported",
    );
    accepts("fn k() -> () {}", SourceKind::Kernel);
}

#[test]
fn intrinsics_need_literal_dimensions() {
    rejects_kernel(
        "fn k(n: u32) {\n    let i = grid(n);\n}",
        "n);",
        "the dimension of `grid` must be the literal 1, 2 or 3",
    );
    rejects_kernel(
        "fn k() {\n    let i = grid_size(4);\n}",
        "4",
        "the dimension of `grid_size` must be the literal 1, 2 or 3",
    );
    rejects_kernel(
        "fn k() {\n    let i = thread_idx(1);\n}",
        "1)",
        "`thread_idx` takes no arguments",
    );
}

#[test]
fn recursion_is_rejected() {
    rejects(
        "fn f(x: u32) -> u32 {\n    if x == 0 { 0 } else { f(x - 1) }\n}",
        SourceKind::Device,
        "f(x - 1)",
        "recursion is not supported in kernels",
    );
}

#[test]
fn type_errors_at_the_expression() {
    rejects_kernel(
        "fn k(a: &[f32], b: &[i32]) {\n    let x = a[0] + b[0];\n}",
        "+ b",
        "cannot add `i32` to `f32`",
    );
    rejects_kernel(
        "fn k(a: &[f32]) {\n    let x = a[0] + 1;\n}",
        "+ 1",
        "cannot add `{integer}` to `f32`",
    );
    rejects_kernel(
        "fn k(a: &[f32]) {\n    let i = 0i32;\n    let x = a[i];\n}",
        "i];",
        "the type `[f32]` cannot be indexed by `i32`",
    );
    rejects_kernel(
        "fn k(n: u32) {\n    let i: usize = n;\n}",
        "n;",
        "mismatched types: expected `usize`, found `u32`",
    );
    rejects_type(
        "fn k(n: u32) {\n    if n {}\n}",
        "n {",
        "mismatched types: expected `bool`, found `u32`",
    );
    rejects_kernel(
        "fn k(a: &[f32]) {\n    a[0] = 1.0;\n}",
        "a[0]",
        "which is behind a `&` reference",
    );
    rejects_kernel(
        "fn k(n: u32) {\n    let x = 1;\n    x = 2;\n}",
        "x = 2",
        "cannot assign twice to immutable variable `x`",
    );
    rejects_kernel(
        "fn k(n: u32) {\n    let b = true as f32;\n}",
        "as f32",
        "casting `bool` as `f32` is invalid",
    );
    rejects_type(
        "fn k(n: u32) {\n    let x = -n;\n}",
        "-n",
        "cannot apply unary operator `-` to type `u32`",
    );
    rejects_type(
        "fn k(x: f32) {\n    let y = x << 2;\n}",
        "<<",
        "no implementation for `f32 << {integer}`",
    );
    rejects_kernel(
        "fn k(x: f32) {\n    let y = x[0];\n}",
        "x[",
        "cannot index into a value of type `f32`",
    );
    rejects_type(
        "fn k() {\n    let y = zz + 1;\n}",
        "zz",
        "cannot find value `zz` in this scope",
    );
    rejects_type(
        "fn k() {\n    break;\n}",
        "break",
        "`break` outside of a loop",
    );
    rejects_type(
        "fn k(n: u32) {\n    let y = if n > 1 { 1.0 } else { 2 };\n}",
        "{ 2 }",
        "`if` and `else` have incompatible types",
    );
    rejects(
        "fn d(x: f32) -> f32 {\n    x as f64\n}",
        SourceKind::Device,
        "x as f64",
        "mismatched types: expected `f32`, found `f64`",
    );
}

#[test]
fn type_errors_without_hints_still_point_at_the_token() {
    let text = "fn k(a: &[f32], b: &[i32]) {\n    let x = a[0] * b[0];\n}";
    let d = check(text, SourceKind::Kernel);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].message, "cannot multiply `f32` by `i32`");
}

#[test]
fn all_independent_errors_are_reported() {
    let text = "fn k(v: Vec<f32>, x: &f32) -> u32 {\n    let a = vec![1];\n    let c = |y: u32| y;\n    let s = \"no\";\n    let q = 1.0f32 + 2u32;\n    unsafe { }\n}";
    let d = check(text, SourceKind::Kernel);
    let msgs: Vec<String> = d.iter().map(|d| d.message.clone()).collect();
    assert_eq!(d.len(), 8, "{msgs:#?}");
    for needle in [
        "`Vec`",
        "`&f32`",
        "cannot return",
        "`vec!`",
        "closures",
        "string literals",
        "cannot add `u32` to `f32`",
        "`unsafe`",
    ] {
        assert!(
            msgs.iter().any(|m| m.contains(needle)),
            "missing {needle}: {msgs:#?}"
        );
    }
}

#[test]
fn errors_do_not_cascade() {
    // `v` has an error type: its uses must not produce more errors.
    let d = check("fn k(v: Vec<f32>, c: &mut [f32]) {\n    let x = v[0] + 1.0;\n    c[0] = x.sqrt() * v.len() as f32;\n}", SourceKind::Kernel);
    assert_eq!(
        d.len(),
        1,
        "{:#?}",
        d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn unknown_callee_results_never_mismatch() {
    accepts("fn k(c: &mut [f32], n: u32) {\n    let t = helper(n);\n    let i: usize = t;\n    c[t] = other(t) + 1.0;\n    let (p, q) = pair();\n    let r = p.sqrt() + q;\n}", SourceKind::Kernel);
}

#[test]
fn device_calls_lists_dependencies_in_order() {
    let item: syn::ItemFn = syn::parse_str("fn k(a: &[f32]) { let x = helpers::sq(a[0]) + cube(a[1]); let y = helpers::sq(x); let z = f32::sqrt(x) + thread_idx().x as f32; std::mem::drop(y); let w = k(1); sync_threads(); let g = grid(1); }").unwrap();
    let calls: Vec<String> = device_calls(&item)
        .iter()
        .map(|p| {
            quote::ToTokens::to_token_stream(p)
                .to_string()
                .replace(' ', "")
        })
        .collect();
    assert_eq!(calls, vec!["helpers::sq", "cube"]);
}

#[test]
fn check_item_never_panics_on_odd_input() {
    for text in [
        "fn k() { let (a, b) = 1; }",
        "fn k() { let x = 99999999999999999999999; }",
        "fn k() { let x = 1e400; let y = -(-(-1)); }",
        "fn k() { loop {} let x = 1; }",
        "fn k() { let t = (1, 2); let y = t.5; }",
        "fn k() { 'a: loop { break 'b; } }",
        "fn k() { let x = grid(0); let y = grid(1, 2); let z = grid(); }",
        "fn k() { continue; return; }",
        "fn k(x: u32) -> () { return x; }",
        "fn k() { let x: _ = 1; let y = x as _; }",
        "fn k() { let x; let y = x.sqrt(); }",
        "fn k(self) {}",
        "fn k() { thread_idx().w; block_dim().0; grid(2).2; }",
        "fn k() { let a = -128i8; let b = -129i8; let c = u64::MAX; }",
    ] {
        let _ = check(text, SourceKind::Kernel);
        let _ = check(text, SourceKind::Device);
    }
}

#[test]
fn names_in_rejected_patterns_raise_no_second_error() {
    // One diagnostic each: the pattern, not also every use of the names it binds.
    rejects(
        "fn k(out: &mut [i32]) { for (a, b) in 0..4 { out[0] = a + b; } }",
        SourceKind::Kernel,
        "(a, b)",
        "this loop pattern is not supported",
    );
    // A tuple pattern of a tuple type is one mistake (wanting to pass a tuple): its
    // type is not reported as well, nor the uses of x and y.
    let d = check(
        "fn k((x, y): (f32, f32), out: &mut [f32]) { out[0] = x + y; }",
        SourceKind::Kernel,
    );
    let messages: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        ["only plain names are supported as parameter patterns"]
    );
}

/// Issue 22: `const` items of a body size arrays and read as their values (Numba's
/// module-level `N = 100` moved into the kernel); the check once refused them.
#[test]
fn body_consts_size_arrays_and_shadow() {
    accepts(
        "fn k(out: &mut [f32]) { const N: usize = 8; const W: [f32; 2] = [0.5, 2.0]; \
         let tile = shared_array::<[f32; N]>(); let mut l = [0.0f32; N / 2]; \
         let t = thread_idx().x as usize; tile[t % N] = W[0]; l[t % (N / 2)] = W[1]; \
         { const N: usize = 3; let s = [1.0f32; N]; out[0] = s[2]; } out[t] = tile[t % N] + l[0]; }",
        SourceKind::Kernel,
    );
}

/// Issue 22: the messages a Numba programmer meets first, in cudajit's words.
#[test]
fn numba_habits_get_cudajits_words() {
    rejects_kernel(
        "fn k(c: &mut [f32]) { let i = thread_idx() as usize; c[i] = 0.0; }",
        "thread_idx()",
        "`thread_idx()` is a `Dim3`",
    );
    rejects_kernel(
        "fn k(c: &mut [f32]) { let tile = shared_array::<[[f32; 4]; 4]>(); \
         let t = thread_idx().x as usize; tile[(t, t)] = 1.0; c[0] = tile[(t, 0)]; }",
        "(t, t)",
        "cannot be indexed by a tuple",
    );
    accepts(
        "fn f(sm: &mut [[f32; 33]; 4], t: usize) -> f32 { sm[1][t] = 2.0; sm[0][t] + sm[1][t] }",
        SourceKind::Device,
    );
    rejects_kernel(
        "fn k(sm: &mut [[f32; 33]; 4]) { sm[0][0] = 1.0; }",
        "&mut [[",
        "2-D arrays",
    );
    rejects(
        "fn f(sm: &mut [[f32; 33]]) -> f32 { sm[0][0] }",
        SourceKind::Device,
        "[f32; 33]]",
        "slices of arrays",
    );
    rejects_kernel(
        "fn k<T: Float>(x: &mut [T]) { x[0] = x[1] * 2.0; }",
        "* 2.0",
        "a float literal is not a `T`",
    );
}
