//! Kernels, device functions, control flow, panics and malformed IR.

use super::*;
use crate::back::nvvm::prologue::GRID_DEPENDENCY_WAIT;

fn vecadd() -> F {
    let mut f = F::new("vecadd", FunctionKind::Kernel);
    let a = f.param("a", slice(ScalarType::F32, false));
    let b = f.param("b", slice(ScalarType::F32, false));
    let c = f.param("c", slice(ScalarType::F32, true));
    let i = f.local("i", USIZE);
    let g = f.e(
        ExprKind::Intrinsic {
            intrinsic: Intrinsic::Grid(Axis::X),
            args: vec![],
        },
        USIZE,
    );
    f.stmt(Stmt::Let {
        local: i,
        init: Some(g),
    });
    let iv = f.read(i);
    let cv = f.read(c);
    let len = f.e(ExprKind::Len(cv), USIZE);
    let cond = f.bin(BinaryOp::Lt, iv, len);
    let (i1, i2, i3) = (f.read(i), f.read(i), f.read(i));
    let x = f.index(a, i1);
    let y = f.index(b, i2);
    let sum = f.bin(BinaryOp::Add, x, y);
    let cs = f.read(c);
    let cs_loc = f.0.loc_of(cs);
    let then_block = Block {
        stmts: vec![Stmt::Assign {
            place: Place::slice_element(cs, i3, cs_loc),
            op: None,
            value: sum,
        }],
        tail: None,
    };
    f.expr_stmt(
        ExprKind::If {
            cond,
            then_block,
            else_block: None,
        },
        Type::Unit,
    );
    f
}

#[test]
fn vecadd_kernel() {
    let out = write(&module(vec![vecadd()]));
    let t = &out.text;
    assert!(t.contains("define void @vecadd(float* noalias %a, i64 %a.len, float* noalias %b, i64 %b.len, float* noalias %c, i64 %c.len, i64 %__cudajit.panic.record)"), "{t}");
    assert!(t.contains(
        "@__cudajit_module_tag = addrspace(1) externally_initialized global i64 0, align 8"
    ));
    // Each special register read carries CUDA's bound on it as `!range`.
    assert!(
        t.contains("call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !range !7"),
        "{t}"
    );
    assert!(
        t.contains("call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !range !1"),
        "{t}"
    );
    assert!(t.contains("!1 = !{i32 0, i32 1024}\n"), "{t}");
    assert!(t.contains("!7 = !{i32 0, i32 2147483647}\n"), "{t}");
    assert!(t.contains("fadd float"));
    assert!(t.contains("icmp ult i64"));
    assert!(t.contains(
        "!{void (float*, i64, float*, i64, float*, i64, i64)* @vecadd, !\"kernel\", i32 1}"
    ));
    assert!(
        t.contains("!nvvmir.version = !{!16}\n!16 = !{i32 2, i32 0, i32 3, i32 2}"),
        "{t}"
    );
    assert_eq!(
        t.matches("declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()")
            .count(),
        1
    );
    assert_eq!(out.panic_sites.len(), 3);
    assert_eq!(out.panic_sites[0].id, 1);
    assert_eq!(out.panic_sites[2].id, 3);
    assert_eq!(
        out.panic_sites[0].message,
        "index out of bounds: the len is {1} but the index is {0}"
    );
    assert_eq!(out.panic_sites[0].function, "vecadd");
    assert!(out.panic_sites[0].line >= 10);
    assert!(t.contains("call void @__cudajit_panic(i64 %__cudajit.panic.record, i32 1, i64 "));
    // The helper's inline PTX (`panic_call`): the claim, the fields, then the fence,
    // then the flag published atomically; `exit` on every path.
    let claim = t.find("atom.cas.b32 %panic_r0, [$0], 0, 1;").unwrap();
    let tag = t.find("st.volatile.u64 [$0+32], %panic_tag;").unwrap();
    let fence = t.find("membar.sys;").unwrap();
    let publish = t.find("atom.exch.b32 %panic_r0, [$0], 2;").unwrap();
    assert!(claim < tag && tag < fence && fence < publish, "{t}");
    assert_eq!(t.matches("exit;").count(), 3, "{t}");
    assert!(t.contains("[__cudajit_module_tag];"), "{t}");
    assert!(!t.contains("trap"));
    // One copy of the helper, called from each failed check (see `panic`).
    assert!(t.contains("cold noinline noreturn nounwind"));
}

#[test]
fn no_bounds_check_no_panic_helper() {
    let mut f = vecadd();
    f.0.options.bounds_check = false;
    let out = write(&module(vec![f]));
    assert!(out.panic_sites.is_empty());
    assert!(!out.text.contains("__cudajit_panic("));
    assert!(out.text.contains("@__cudajit_module_tag"));
    // The hidden record parameter is there regardless: the host ABI does not depend on
    // the options.
    assert!(out.text.contains("i64 %__cudajit.panic.record)"));
}

/// On sm_90 every kernel (its launch-proven copy too) begins by letting its dependent
/// launch and waiting for the grids it depends on, before any parameter is touched; other targets and the caches' key
/// IR (no target) do not, and device functions never do.
#[test]
fn sm_90_kernels_first_wait_for_prerequisite_grids() {
    let m = module(vec![vecadd()]);
    let text = |arch| {
        write_string(
            &m,
            &Options {
                arch,
                ..Options::default()
            },
        )
        .unwrap()
        .text
    };
    let sm90 = text(Some(90));
    let kernels: Vec<&str> = sm90.split("\ndefine void @").skip(1).collect();
    assert!(!kernels.is_empty(), "{sm90}");
    for kernel in kernels {
        let first = kernel
            .lines()
            .skip(2)
            .find(|l| !l.contains(" = alloca "))
            .unwrap();
        assert_eq!(first.trim(), GRID_DEPENDENCY_WAIT, "{kernel}");
    }
    let kernels = sm90.matches("\ndefine void @").count();
    assert_eq!(sm90.matches("griddepcontrol.wait;").count(), kernels);
    assert!(!sm90.contains("griddepcontrol.launch_dependents"), "{sm90}");
    check_with_toolchain(&sm90);
    for arch in [None, Some(80), Some(89)] {
        assert!(!text(arch).contains("griddepcontrol"), "{arch:?}");
    }
}

#[test]
fn device_function_and_call() {
    let mut sq = F::new("square", FunctionKind::Device);
    let x = sq.param("x", F32);
    sq.0.ret = F32;
    let (x1, x2) = (sq.read(x), sq.read(x));
    let prod = sq.bin(BinaryOp::Mul, x1, x2);
    sq.0.body.tail = Some(prod);

    let mut k = F::new("k", FunctionKind::Kernel);
    let out_p = k.param("out", slice(ScalarType::F32, true));
    let flag = k.param("flag", BOOL);
    let three = k.float(ScalarType::F32, 3.0);
    let call = k.e(
        ExprKind::Call {
            function: Handle::new(0),
            args: vec![three],
        },
        F32,
    );
    let zero = k.int(ScalarType::Usize, 0);
    let ov = k.read(out_p);
    let fv = k.read(flag);
    let assign = Stmt::Assign {
        place: Place::slice_element(ov, zero, Default::default()),
        op: Some(BinaryOp::Add),
        value: call,
    };
    k.expr_stmt(
        ExprKind::If {
            cond: fv,
            then_block: Block {
                stmts: vec![assign],
                tail: None,
            },
            else_block: None,
        },
        Type::Unit,
    );
    let out = write(&module(vec![sq, k]));
    let t = &out.text;
    assert!(
        t.contains("define internal float @__cudajit_dev_square(float %x, i64 %__cudajit.panic.record) alwaysinline {"),
        "{t}"
    );
    assert!(
        t.contains("call float @__cudajit_dev_square(float 0x4008000000000000, i64 %__cudajit.panic.record)"),
        "{t}"
    );
    assert!(
        t.contains("define void @k(float* noalias %out, i64 %out.len, i8 %flag, i64 %__cudajit.panic.record)"),
        "{t}"
    );
    assert!(t.contains("icmp ne i8 %flag, 0"));
    assert!(t.contains("!{void (float*, i64, i8, i64)* @k, !\"kernel\", i32 1}"));
    assert!(!t.contains("@__cudajit_dev_square, !\"kernel\""));
}

/// `for i in 0..=u32::MAX { if i == 7 { break } }`, a labelled `loop` with `break value`,
/// `while`, and statements after a `return` (written into a dead block).
#[test]
fn control_flow() {
    let u32t = Type::Scalar(ScalarType::U32);
    let mut f = F::new("flow", FunctionKind::Kernel);
    let out_p = f.param("out", slice(ScalarType::U32, true));
    let acc = f.local("acc", u32t.clone());
    let zero = f.int(ScalarType::U32, 0);
    f.stmt(Stmt::Let {
        local: acc,
        init: Some(zero),
    });
    // for i in 0..=MAX
    let i = f.local("i", u32t.clone());
    let (start, end) = (
        f.int(ScalarType::U32, 0),
        f.int(ScalarType::U32, u32::MAX as i64),
    );
    let iv = f.read(i);
    let seven = f.int(ScalarType::U32, 7);
    let is7 = f.bin(BinaryOp::Eq, iv, seven);
    let brk = f.e(
        ExprKind::Break {
            target: LoopId(0),
            value: None,
        },
        Type::Never,
    );
    let if_brk = f.e(
        ExprKind::If {
            cond: is7,
            then_block: Block {
                stmts: vec![Stmt::Expr(brk)],
                tail: None,
            },
            else_block: None,
        },
        Type::Unit,
    );
    let iv2 = f.read(i);
    f.stmt(Stmt::ForRange {
        unroll: crate::ir::Unroll::Auto,
        id: LoopId(0),
        var: i,
        start,
        end,
        inclusive: true,
        step: None,
        reverse: false,
        body: Block {
            stmts: vec![
                Stmt::Expr(if_brk),
                Stmt::Assign {
                    place: Place::local(acc, Default::default()),
                    op: Some(BinaryOp::Add),
                    value: iv2,
                },
            ],
            tail: None,
        },
    });
    // let v = 'outer: loop { loop { break 'outer acc; } };
    let av = f.read(acc);
    let inner_break = f.e(
        ExprKind::Break {
            target: LoopId(1),
            value: Some(av),
        },
        Type::Never,
    );
    let inner = f.e(
        ExprKind::Loop {
            id: LoopId(2),
            body: Block {
                stmts: vec![Stmt::Expr(inner_break)],
                tail: None,
            },
        },
        Type::Never,
    );
    let outer = f.e(
        ExprKind::Loop {
            id: LoopId(1),
            body: Block {
                stmts: vec![Stmt::Expr(inner)],
                tail: None,
            },
        },
        u32t.clone(),
    );
    let v = f.local("v", u32t.clone());
    f.stmt(Stmt::Let {
        local: v,
        init: Some(outer),
    });
    // while acc > 3 { acc -= 1; continue; }
    let (a1, three, one) = (
        f.read(acc),
        f.int(ScalarType::U32, 3),
        f.int(ScalarType::U32, 1),
    );
    let gt = f.bin(BinaryOp::Gt, a1, three);
    let cont = f.e(ExprKind::Continue { target: LoopId(3) }, Type::Never);
    f.stmt(Stmt::While {
        id: LoopId(3),
        cond: gt,
        body: Block {
            stmts: vec![
                Stmt::Assign {
                    place: Place::local(acc, Default::default()),
                    op: Some(BinaryOp::Sub),
                    value: one,
                },
                Stmt::Expr(cont),
            ],
            tail: None,
        },
    });
    // out[0] = if v > acc { v } else { acc }; return; out[1] = 1;
    let (vv, aa, vv2, aa2) = (f.read(v), f.read(acc), f.read(v), f.read(acc));
    let c = f.bin(BinaryOp::Gt, vv, aa);
    let sel = f.e(
        ExprKind::If {
            cond: c,
            then_block: Block {
                stmts: vec![],
                tail: Some(vv2),
            },
            else_block: Some(Block {
                stmts: vec![],
                tail: Some(aa2),
            }),
        },
        u32t.clone(),
    );
    let (o, z) = (f.read(out_p), f.int(ScalarType::Usize, 0));
    f.stmt(Stmt::Assign {
        place: Place::slice_element(o, z, Default::default()),
        op: None,
        value: sel,
    });
    f.expr_stmt(ExprKind::Return(None), Type::Never);
    let (o, z, one) = (
        f.read(out_p),
        f.int(ScalarType::Usize, 1),
        f.int(ScalarType::U32, 1),
    );
    f.stmt(Stmt::Assign {
        place: Place::slice_element(o, z, Default::default()),
        op: None,
        value: one,
    });
    // short-circuit: out[2] = (acc > 3 && v < 2) as u32
    let (a3, three, v3, two) = (
        f.read(acc),
        f.int(ScalarType::U32, 3),
        f.read(v),
        f.int(ScalarType::U32, 2),
    );
    let l = f.bin(BinaryOp::Gt, a3, three);
    let r = f.bin(BinaryOp::Lt, v3, two);
    let and = f.e(
        ExprKind::Logical {
            op: LogicalOp::And,
            lhs: l,
            rhs: r,
        },
        BOOL,
    );
    let cast = f.e(
        ExprKind::Cast {
            operand: and,
            to: ScalarType::U32,
        },
        u32t.clone(),
    );
    let (o, z) = (f.read(out_p), f.int(ScalarType::Usize, 2));
    f.stmt(Stmt::Assign {
        place: Place::slice_element(o, z, Default::default()),
        op: None,
        value: cast,
    });

    let out = write(&module(vec![f]));
    let t = &out.text;
    assert!(
        t.contains("icmp ugt i32 0, -1"),
        "inclusive range emptiness check\n{t}"
    );
    assert!(
        t.contains("for.done") && t.contains("icmp eq i32 %for.i, -1"),
        "{t}"
    );
    assert!(t.contains("dead:"), "{t}");
    assert!(t.contains("and.rhs:"), "{t}");
    assert!(t.contains("%loop.result"), "{t}");
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    // A kernel returning a value.
    let mut f = F::new("bad", FunctionKind::Kernel);
    f.0.ret = F32;
    assert!(write_string(&module(vec![f]), &Options::default()).is_err());
    // A dangling expression handle.
    let mut f = F::new("bad2", FunctionKind::Kernel);
    f.stmt(Stmt::Expr(Handle::new(42)));
    assert!(write_string(&module(vec![f]), &Options::default()).is_err());
    // Adding a float to an int.
    let mut f = F::new("bad3", FunctionKind::Kernel);
    let (a, b) = (f.int(ScalarType::I32, 1), f.float(ScalarType::F32, 1.0));
    let s = f.e(
        ExprKind::Binary {
            op: BinaryOp::Add,
            lhs: a,
            rhs: b,
        },
        Type::Scalar(ScalarType::I32),
    );
    f.stmt(Stmt::Expr(s));
    assert!(write_string(&module(vec![f]), &Options::default()).is_err());
    // break outside a loop, call of a missing function, kernel with a tuple param.
    let mut f = F::new("bad4", FunctionKind::Kernel);
    f.expr_stmt(
        ExprKind::Break {
            target: LoopId(9),
            value: None,
        },
        Type::Never,
    );
    assert!(write_string(&module(vec![f]), &Options::default()).is_err());
    let mut f = F::new("bad5", FunctionKind::Kernel);
    f.expr_stmt(
        ExprKind::Call {
            function: Handle::new(7),
            args: vec![],
        },
        Type::Unit,
    );
    assert!(write_string(&module(vec![f]), &Options::default()).is_err());
    let mut f = F::new("bad6", FunctionKind::Kernel);
    f.param("t", Type::Tuple(vec![F32, F32]));
    assert!(write_string(&module(vec![f]), &Options::default()).is_err());
}

#[test]
fn tuples_and_fields() {
    let pair = Type::Tuple(vec![USIZE, USIZE]);
    let mut f = F::new("tuples", FunctionKind::Kernel);
    let out = f.param("out", slice(ScalarType::Usize, true));
    let t = f.local("t", pair.clone());
    let (gx, gy) = (
        f.e(
            ExprKind::Intrinsic {
                intrinsic: Intrinsic::Grid(Axis::X),
                args: vec![],
            },
            USIZE,
        ),
        f.e(
            ExprKind::Intrinsic {
                intrinsic: Intrinsic::GridSize(Axis::Y),
                args: vec![],
            },
            USIZE,
        ),
    );
    let tuple = f.e(ExprKind::Tuple(vec![gx, gy]), pair.clone());
    f.stmt(Stmt::Let {
        local: t,
        init: Some(tuple),
    });
    let one = f.int(ScalarType::Usize, 1);
    f.stmt(Stmt::Assign {
        place: Place::local(t, Default::default()).field(1),
        op: Some(BinaryOp::Add),
        value: one,
    });
    let tv = f.read(t);
    let second = f.e(ExprKind::Field { base: tv, index: 1 }, USIZE);
    let (o, z) = (f.read(out), f.int(ScalarType::Usize, 0));
    f.stmt(Stmt::Assign {
        place: Place::slice_element(o, z, Default::default()),
        op: None,
        value: second,
    });
    let text = write(&module(vec![f])).text;
    assert!(
        text.contains("insertvalue { i64, i64 }") && text.contains("extractvalue { i64, i64 }"),
        "{text}"
    );
    assert!(
        text.contains("getelementptr { i64, i64 }, { i64, i64 }* %t.addr, i32 0, i32 1"),
        "{text}"
    );
    assert!(text.contains("sreg.nctaid.y"), "{text}");
}
