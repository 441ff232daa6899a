//! Lowering and type-inference tests: the inferred types must be rustc's.

use super::*;
use crate::ir::{ExprKind, Function, Intrinsic, Literal, ScalarType, Stmt, Type};

/// A leaked `FnSource` whose text starts at `line` of `file.rs`.
pub fn source(text: &str, kind: SourceKind, line: u32) -> &'static FnSource {
    let item: syn::ItemFn = syn::parse_str(text).expect("test source parses");
    let name: &'static str = Box::leak(item.sig.ident.to_string().into_boxed_str());
    Box::leak(Box::new(FnSource {
        name,
        kind,
        text: Box::leak(text.to_string().into_boxed_str()),
        file: "file.rs",
        line,
        options: crate::ir::FunctionOptions::DEFAULT,
        deps: &[],
        consts: &[],
        structs: &[],
        instance: &[],
    }))
}

/// The lowered IR of one kernel (panics on errors).
pub fn lower_kernel(text: &str) -> Function {
    kernel(text)
}

fn kernel(text: &str) -> Function {
    lower_one(text, SourceKind::Kernel)
}

fn lower_one(text: &str, kind: SourceKind) -> Function {
    match lower_sources(&[source(text, kind, 1)]) {
        Ok(m) => m
            .functions
            .iter()
            .next()
            .map(|(_, f)| f.clone())
            .expect("one function"),
        Err(e) => panic!("unexpected errors: {e:#?}"),
    }
}

fn errors(text: &str) -> Vec<SourceError> {
    lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .err()
        .unwrap_or_default()
}

/// Type of the last local called `name`.
fn local(f: &Function, name: &str) -> Type {
    f.locals
        .iter()
        .filter(|(_, l)| l.name == name)
        .last()
        .map(|(_, l)| l.ty.clone())
        .unwrap_or_else(|| panic!("no local `{name}`"))
}

fn s(t: ScalarType) -> Type {
    Type::Scalar(t)
}

use ScalarType::*;

#[test]
fn integer_literal_defaults_to_i32() {
    let f = kernel("fn k() { let x = 1; }");
    assert_eq!(local(&f, "x"), s(I32));
}

#[test]
fn float_literal_defaults_to_f64() {
    let f = kernel("fn k() { let x = 1.5; }");
    assert_eq!(local(&f, "x"), s(F64));
}

#[test]
fn let_annotation_flows_back_to_earlier_literal() {
    let f = kernel("fn k() { let x = 1; let y: u64 = x; }");
    assert_eq!(local(&f, "x"), s(U64));
    assert_eq!(local(&f, "y"), s(U64));
}

#[test]
fn operand_unifies_literal_with_slice_element() {
    let f = kernel("fn k(a: &[f32], c: &mut [f32]) { let i = grid(1); let x = 2.0; let y = x * a[i]; c[i] = y; }");
    assert_eq!(local(&f, "x"), s(F32));
    assert_eq!(local(&f, "y"), s(F32));
    assert_eq!(local(&f, "i"), s(Usize));
}

#[test]
fn index_position_makes_literal_usize() {
    let f = kernel("fn k(a: &[f32]) { let i = 0; let v = a[i]; }");
    assert_eq!(local(&f, "i"), s(Usize));
    assert_eq!(local(&f, "v"), s(F32));
}

#[test]
fn cast_does_not_constrain_operand() {
    let f = kernel("fn k() { let y = 1 as f32; let z = 2.0 as f32; }");
    let lits: Vec<Type> = f
        .exprs
        .iter()
        .filter(|(_, e)| matches!(e.kind, ExprKind::Literal(_)))
        .map(|(_, e)| e.ty.clone())
        .collect();
    assert_eq!(lits, vec![s(I32), s(F64)]);
    assert_eq!(local(&f, "y"), s(F32));
}

#[test]
fn shift_rhs_keeps_its_own_type() {
    let f = kernel("fn k() { let a: u64 = 1; let b = 3; let c = a << b; }");
    assert_eq!(local(&f, "b"), s(I32));
    assert_eq!(local(&f, "c"), s(U64));
}

#[test]
fn comparison_unifies_and_gives_bool() {
    let f = kernel("fn k(c: &mut [f32]) { let n = 10; let i = grid(1); let b = i < n; }");
    assert_eq!(local(&f, "n"), s(Usize));
    assert_eq!(local(&f, "b"), s(Bool));
}

#[test]
fn for_loop_variable_takes_range_type() {
    let f = kernel("fn k(a: &[f32]) { let mut acc = 0.0f32; for j in 0..a.len() { acc += a[j]; } for q in 0..4 { } for r in 1u8..=3 { } }");
    assert_eq!(local(&f, "j"), s(Usize));
    assert_eq!(local(&f, "q"), s(I32));
    assert_eq!(local(&f, "r"), s(U8));
    let inclusive = f
        .body
        .stmts
        .iter()
        .filter(|st| {
            matches!(
                st,
                Stmt::ForRange {
                    inclusive: true,
                    ..
                }
            )
        })
        .count();
    assert_eq!(inclusive, 1);
}

/// `(step, reverse, inclusive)` of each top-level `for` loop, with the step's type.
fn for_loops(f: &Function) -> Vec<(Option<Type>, bool, bool)> {
    f.body
        .stmts
        .iter()
        .filter_map(|st| match st {
            Stmt::ForRange {
                step,
                reverse,
                inclusive,
                ..
            } => Some((step.map(|h| f.exprs[h].ty.clone()), *reverse, *inclusive)),
            _ => None,
        })
        .collect()
}

#[test]
fn step_is_usize_and_the_variable_has_the_range_type() {
    let f = kernel("fn k(n: u8, m: i64) { let st = 2; for a in (0..n).step_by(st) { } for b in (0..=m).rev() { } for c in (-5..5).rev().step_by(3) { } for d in (grid(1)..10).step_by(grid_size(1)) { } for e in 0..3 { } }");
    assert_eq!(local(&f, "st"), s(Usize), "the step constrains its literal");
    assert_eq!(local(&f, "a"), s(U8));
    assert_eq!(local(&f, "b"), s(I64));
    assert_eq!(local(&f, "c"), s(I32));
    assert_eq!(local(&f, "d"), s(Usize));
    assert_eq!(local(&f, "e"), s(I32));
    assert_eq!(
        for_loops(&f),
        vec![
            (Some(s(Usize)), false, false),
            (None, true, true),
            (Some(s(Usize)), true, false),
            (Some(s(Usize)), false, false),
            (None, false, false),
        ]
    );
}

#[test]
fn step_of_another_integer_type_is_an_error() {
    let e = errors("fn k(n: u32) { for i in (0..n).step_by(n) { } }");
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(
        e[0].message.contains("expected `usize`, found `u32`"),
        "{e:#?}"
    );
    let e = errors("fn k(n: u32) { for i in (0..n).step_by(1).rev() { } }");
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0].message.contains(".rev().step_by(n)"), "{e:#?}");
}

#[test]
fn grid_two_destructures_to_usize_pair() {
    let f = kernel("fn k() { let (x, y) = grid(2); let (a, _, c) = grid_size(3); }");
    assert_eq!(local(&f, "x"), s(Usize));
    assert_eq!(local(&f, "y"), s(Usize));
    assert_eq!(local(&f, "c"), s(Usize));
}

#[test]
fn thread_idx_fields_are_u32_intrinsics() {
    let f = kernel("fn k() { let t = thread_idx().x; let b = block_dim().y; let all = block_idx(); let z = all.z; }");
    assert_eq!(local(&f, "t"), s(U32));
    assert_eq!(local(&f, "z"), s(U32));
    assert!(f.exprs.iter().any(|(_, e)| matches!(
        e.kind,
        ExprKind::Intrinsic {
            intrinsic: Intrinsic::ThreadIdx(ir::Axis::X),
            ..
        }
    )));
    assert!(f.exprs.iter().any(|(_, e)| matches!(
        e.kind,
        ExprKind::Intrinsic {
            intrinsic: Intrinsic::BlockDim(ir::Axis::Y),
            ..
        }
    )));
}

#[test]
fn device_call_resolves_callee_defined_after_caller() {
    let k = source(
        "fn k(a: &[f32], c: &mut [f32]) {\n let i = grid(1);\n c[i] = sq(a[i]) + 1.0;\n}",
        SourceKind::Kernel,
        10,
    );
    let d = source("fn sq(x: f32) -> f32 { x * x }", SourceKind::Device, 3);
    let m = lower_sources(&[k, d]).expect("lowers");
    let kf = &m.functions[m.function_by_name("k").unwrap()];
    let call = kf.exprs.iter().find_map(|(_, e)| match &e.kind {
        ExprKind::Call { function, .. } => Some((*function, e.ty.clone())),
        _ => None,
    });
    assert_eq!(call, Some((m.function_by_name("sq").unwrap(), s(F32))));
    let sq = &m.functions[m.function_by_name("sq").unwrap()];
    assert_eq!(sq.ret, s(F32));
    assert!(sq.body.tail.is_some());
}

#[test]
fn call_argument_constrains_literal() {
    let k = source("fn k() { let x = 3; let y = f(x); }", SourceKind::Kernel, 1);
    let d = source("fn f(v: u16) -> u16 { v }", SourceKind::Device, 1);
    let m = lower_sources(&[k, d]).expect("lowers");
    let kf = &m.functions[m.function_by_name("k").unwrap()];
    assert_eq!(local(kf, "x"), s(U16));
    assert_eq!(local(kf, "y"), s(U16));
}

#[test]
fn unknown_callee_is_an_error_with_hint() {
    let e = errors("fn k() { let y = helper(1.0); }");
    assert_eq!(e.len(), 1);
    assert!(
        e[0].message
            .contains("cannot find function `helper` in this kernel's compilation unit"),
        "{e:?}"
    );
    assert!(e[0].message.contains("#[device]"));
}

#[test]
fn duplicate_names_are_rejected() {
    let k = source("fn k() { f(); }", SourceKind::Kernel, 1);
    let a = source("fn f() {}", SourceKind::Device, 1);
    let b = source("fn f() {}", SourceKind::Device, 5);
    let e = lower_sources(&[k, a, b]).unwrap_err();
    assert!(
        e.iter()
            .any(|e| e.message.contains("defined by two device functions")),
        "{e:?}"
    );
}

#[test]
fn lines_are_mapped_to_the_file() {
    let e = lower_sources(&[source(
        "fn k(a: &[f32]) {\n    let i = 0i32;\n    let v = a[i];\n}",
        SourceKind::Kernel,
        20,
    )])
    .unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(
        (e[0].file.as_str(), e[0].line, e[0].column),
        ("file.rs", 22, 15)
    );
    assert!(
        e[0].message
            .contains("the type `[f32]` cannot be indexed by `i32`"),
        "{e:?}"
    );
    let ok = lower_sources(&[source(
        "fn k(c: &mut [f32]) {\n  let i = grid(1);\n  c[i] = 1.0;\n}",
        SourceKind::Kernel,
        100,
    )])
    .unwrap();
    let f = ok.functions.iter().next().unwrap().1;
    assert_eq!(f.loc.line, 100);
    let index_loc = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Literal(Literal::Float(_))))
        .map(|(h, _)| f.loc_of(h))
        .unwrap();
    assert_eq!((index_loc.line, index_loc.column), (102, 10));
}

#[test]
fn options_and_kind_are_set() {
    let src: &'static FnSource = Box::leak(Box::new(FnSource {
        options: crate::ir::FunctionOptions {
            bounds_check: false,
            fast_math: true,
            launch_bounds: None,
            ..crate::ir::FunctionOptions::DEFAULT
        },
        deps: &[],
        consts: &[],
        structs: &[],
        ..*source("fn k() {}", SourceKind::Kernel, 1)
    }));
    let m = lower_sources(&[src]).unwrap();
    let f = m.functions.iter().next().unwrap().1;
    assert_eq!(f.kind, ir::FunctionKind::Kernel);
    assert!(!f.options.bounds_check && f.options.fast_math);
    assert_eq!(f.file, "file.rs");
}

#[test]
fn shadowing_creates_new_locals() {
    let f = kernel("fn k() { let x = 1u8; let x = x as f32; let y = x; }");
    let xs: Vec<Type> = f
        .locals
        .iter()
        .filter(|(_, l)| l.name == "x")
        .map(|(_, l)| l.ty.clone())
        .collect();
    assert_eq!(xs, vec![s(U8), s(F32)]);
    assert_eq!(local(&f, "y"), s(F32));
}

#[test]
fn if_expression_and_loop_break_values() {
    let f = kernel("fn k(n: u32) { let a = if n > 3 { 1 } else if n > 1 { 2u64 } else { 3 }; let mut i = 0; let b = loop { i += 1; if i > 10 { break i * 2; } }; let c: i64 = b; }");
    assert_eq!(local(&f, "a"), s(U64));
    assert_eq!(local(&f, "i"), s(I64));
    assert_eq!(local(&f, "b"), s(I64));
}

#[test]
fn diverging_branches_coerce() {
    let d = lower_one("fn f(x: f32) -> f32 { if x < 0.0 { return 0.0; } let y = if x > 1.0 { return 1.0 } else { x }; y }", SourceKind::Device);
    assert_eq!(local(&d, "y"), s(F32));
    let ret = d
        .exprs
        .iter()
        .filter(|(_, e)| matches!(e.kind, ExprKind::Return(_)))
        .count();
    assert_eq!(ret, 2);
    assert!(d
        .exprs
        .iter()
        .all(|(_, e)| !matches!(e.kind, ExprKind::Return(_)) || e.ty == Type::Never));
}

#[test]
fn labelled_loops_resolve_targets() {
    let f = kernel("fn k() { 'outer: for i in 0..4 { let mut j = 0; while j < 4 { if j == i { continue 'outer; } if j > 2 { break 'outer; } j += 1; } } }");
    let outer = match &f.body.stmts[0] {
        Stmt::ForRange { id, .. } => *id,
        other => panic!("{other:?}"),
    };
    let targets: Vec<ir::LoopId> = f
        .exprs
        .iter()
        .filter_map(|(_, e)| match e.kind {
            ExprKind::Break { target, .. } | ExprKind::Continue { target } => Some(target),
            _ => None,
        })
        .collect();
    assert_eq!(targets, vec![outer, outer]);
}

#[test]
fn compound_assignment_on_slice_and_tuple_field() {
    let f = kernel("fn k(c: &mut [f32]) { let i = grid(1); c[i] += 2.0; let mut t = (1, 2.0f32); t.0 = 5u8; t.1 *= 3.0; }");
    assert_eq!(local(&f, "t"), Type::Tuple(vec![s(U8), s(F32)]));
    let assigns = f
        .body
        .stmts
        .iter()
        .filter(|s| matches!(s, Stmt::Assign { .. }))
        .count();
    assert_eq!(assigns, 3);
}

#[test]
fn math_methods_path_forms_and_constants() {
    let f = kernel("fn k(a: &mut [f32]) { let x = a[0].sqrt(); let y = f32::max(x, 1.0); let p = std::f32::consts::PI; let q = f64::consts::E; let m = i32::MIN; let u = u32::MAX; let w = 5u32.wrapping_sub(7); let r = x.powi(2); }");
    assert_eq!(local(&f, "x"), s(F32));
    assert_eq!(local(&f, "y"), s(F32));
    assert_eq!(local(&f, "p"), s(F32));
    assert_eq!(local(&f, "q"), s(F64));
    assert_eq!(local(&f, "w"), s(U32));
    assert_eq!(local(&f, "r"), s(F32));
    let lits: Vec<Literal> = f
        .exprs
        .iter()
        .filter_map(|(_, e)| match &e.kind {
            ExprKind::Literal(l) => Some(l.clone()),
            _ => None,
        })
        .collect();
    assert!(lits.contains(&Literal::Int(i32::MIN as i64 as u64)));
    assert!(lits.contains(&Literal::Int(u32::MAX as u64)));
    assert!(lits.contains(&Literal::Float(std::f32::consts::PI as f64)));
    let powi_arg = f.exprs.iter().find_map(|(_, e)| match &e.kind {
        ExprKind::Intrinsic {
            intrinsic: Intrinsic::Math(ir::MathFn::Powi),
            args,
        } => Some(f.exprs[args[1]].ty.clone()),
        _ => None,
    });
    assert_eq!(powi_arg, Some(s(I32)));
}

#[test]
fn negative_literals_fold_and_range_check() {
    let f = kernel("fn k() { let a: i8 = -128; let b = -1.5f32; }");
    assert!(f.exprs.iter().any(
        |(_, e)| matches!(e.kind, ExprKind::Literal(Literal::Int(v)) if v == (-128i64) as u64)
    ));
    let e = errors("fn k() { let a: u8 = 256; let b: i8 = -129; }");
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].message.contains("literal out of range for `u8`"));
}

#[test]
fn unit_tail_becomes_statement_and_value_tail_stays() {
    let f = kernel("fn k(c: &mut [f32]) { let i = grid(1); if i < c.len() { c[i] = 1.0; } }");
    assert!(f.body.tail.is_none());
    assert!(matches!(f.body.stmts.last(), Some(Stmt::Expr(_))));
}

#[test]
fn no_inference_variables_survive() {
    let f = kernel("fn k(a: &[f32], c: &mut [f32], n: u32) { let i = grid(1); let (tx, ty) = grid(2); let mut s = 0.0; let mut j = 0; while j < n { s += a[j as usize]; j += 1; } if i < c.len() && tx != ty { c[i] = s; } }");
    for (_, l) in f.locals.iter() {
        assert_ne!(l.ty, Type::Unit, "local {} untyped", l.name);
    }
    assert_eq!(local(&f, "s"), s(F32));
    assert_eq!(local(&f, "j"), s(U32));
}

#[test]
fn bool_to_int_and_float_to_int_casts() {
    let f = kernel(
        "fn k(c: &mut [i32]) { let b = true; let x = b as i32 + (2.7f32 as i32); c[0] = x; }",
    );
    assert_eq!(local(&f, "x"), s(I32));
}

#[test]
fn matrix_multiply_kernel_lowers() {
    let f = kernel(
        "fn matmul(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
            let (row, col) = grid(2);
            if row < n && col < n {
                let mut acc = 0.0;
                for k in 0..n {
                    acc += a[row * n + k] * b[k * n + col];
                }
                c[row * n + col] = acc;
            }
        }",
    );
    assert_eq!(local(&f, "acc"), s(F32));
    assert_eq!(local(&f, "k"), s(Usize));
}

#[test]
fn saxpy_kernel_lowers() {
    let f = kernel("fn saxpy(a: f32, x: &[f32], y: &mut [f32]) { let i = (block_idx().x * block_dim().x + thread_idx().x) as usize; if i < y.len() { y[i] = a * x[i] + y[i]; } }");
    assert_eq!(local(&f, "i"), s(Usize));
    assert_eq!(f.params.len(), 3);
    assert_eq!(
        f.params[1].ty,
        Type::Slice {
            elem: F32,
            mutable: false
        }
    );
    assert_eq!(
        f.params[2].ty,
        Type::Slice {
            elem: F32,
            mutable: true
        }
    );
}

#[test]
fn deferred_init_let() {
    let f = kernel("fn k(n: u32) { let x; if n > 2 { x = 1.0f32; } else { x = 2.0; } let y = x; }");
    assert_eq!(local(&f, "y"), s(F32));
}

#[test]
fn sync_threads_is_unit_statement() {
    let f = kernel("fn k() { sync_threads(); }");
    assert!(
        matches!(&f.body.stmts[0], Stmt::Expr(h) if matches!(f.exprs[*h].kind, ExprKind::Intrinsic { intrinsic: Intrinsic::SyncThreads, .. }))
    );
}

#[test]
fn grid_sync_is_unit_statement_and_makes_the_unit_cooperative() {
    let f = kernel("fn k() { grid_sync(); }");
    assert!(
        matches!(&f.body.stmts[0], Stmt::Expr(h) if matches!(f.exprs[*h].kind, ExprKind::Intrinsic { intrinsic: Intrinsic::GridSync, .. }))
    );
    // Through a device function: the flag is decided over the whole unit.
    let device = source("fn wait() { grid_sync(); }", SourceKind::Device, 1);
    let kernel = source("fn k() { wait(); }", SourceKind::Kernel, 1);
    let unit = lower_sources(&[kernel, device]).unwrap();
    assert!(unit.needs_cooperative_launch());
    let plain = lower_sources(&[source("fn k() { sync_threads(); }", SourceKind::Kernel, 1)]);
    assert!(!plain.unwrap().needs_cooperative_launch());
    let e = errors("fn k() { grid_sync(1); }");
    assert!(
        e[0].message.contains("`grid_sync` takes no arguments"),
        "{e:?}"
    );
}

#[test]
fn rendered_macro_text_relowers_with_file_lines() {
    let original = "fn k(a: &[f32], c: &mut [f32]) {\n    'outer: for j in 0..4 {\n        if j > 2 { break 'outer; }\n    }\n    let i = 0i32;\n    c[0] = a[i];\n}";
    let tokens: proc_macro2::TokenStream = syn::parse_str::<syn::ItemFn>(original)
        .map(|i| quote::quote!(#i))
        .unwrap();
    let (text, first_line) = crate::source::render_preserving_lines(tokens);
    assert_eq!(first_line, 1);
    let src = Box::leak(Box::new(FnSource {
        text: Box::leak(text.into_boxed_str()),
        line: 40,
        deps: &[],
        consts: &[],
        structs: &[],
        ..*source("fn k() {}", SourceKind::Kernel, 1)
    }));
    let e = lower_sources(&[src]).unwrap_err();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].line, 45);
    assert!(e[0].message.contains("cannot be indexed by `i32`"));
}

/// The `#[unroll]` hint of each top-level `for` loop.
fn unroll_hints(f: &Function) -> Vec<crate::ir::Unroll> {
    f.body
        .stmts
        .iter()
        .filter_map(|st| match st {
            Stmt::ForRange { unroll, .. } => Some(*unroll),
            _ => None,
        })
        .collect()
}

#[test]
fn unroll_attributes_become_loop_hints() {
    use crate::ir::Unroll;
    let f = kernel(
        "fn k(a: &mut [f32]) { #[unroll] for i in 0..8 { a[i] = 0.0; } #[unroll(4)] for i in 0..a.len() { a[i] += 1.0; } for i in 0..2 { a[i] = 2.0; } }",
    );
    assert_eq!(
        unroll_hints(&f),
        [Unroll::Full, Unroll::Times(4), Unroll::Auto]
    );
}

#[test]
fn an_unroll_count_out_of_range_or_not_a_literal_is_an_error() {
    for attr in [
        "#[unroll(0)]",
        "#[unroll(2000)]",
        "#[unroll(n)]",
        "#[unroll = 4]",
    ] {
        let errs = errors(&format!(
            "fn k(a: &mut [f32], n: usize) {{ {attr} for i in 0..4 {{ a[i] = 0.0; }} }}"
        ));
        assert_eq!(errs.len(), 1, "{attr}: {errs:?}");
        assert!(
            errs[0]
                .message
                .contains("`#[unroll(..)]` takes an iteration count from 1 to 1024"),
            "{attr}: {errs:?}"
        );
    }
}
