//! Hand-built IR → text checks. When `CUDAJIT_NVVM_PATH` and `CUDAJIT_PTXAS` are set,
//! every module written here also goes through real libnvvm and ptxas.

use super::*;
use crate::ir::*;

/// A terse way to build functions by hand.
struct F(Function);

impl F {
    fn new(name: &str, kind: FunctionKind) -> F {
        F(Function {
            name: name.into(),
            kind,
            options: FunctionOptions::default(),
            file: "tests/hand.rs".into(),
            loc: SourceLoc { line: 1, column: 1 },
            params: Vec::new(),
            ret: Type::Unit,
            locals: Arena::new(),
            exprs: Arena::new(),
            expr_locs: Vec::new(),
            body: Block::default(),
        })
    }
    fn param(&mut self, name: &str, ty: Type) -> Handle<Local> {
        let local = self.local(name, ty.clone());
        self.0.params.push(Param {
            name: name.into(),
            ty,
            local,
        });
        local
    }
    fn local(&mut self, name: &str, ty: Type) -> Handle<Local> {
        self.0.locals.append(Local {
            name: name.into(),
            ty,
            mutable: true,
            loc: SourceLoc::default(),
        })
    }
    fn e(&mut self, kind: ExprKind, ty: Type) -> Handle<Expr> {
        let line = self.0.exprs.len() as u32 + 10;
        self.0
            .add_expr(Expr { kind, ty }, SourceLoc { line, column: 5 })
    }
    fn int(&mut self, s: ScalarType, v: i64) -> Handle<Expr> {
        self.e(ExprKind::Literal(Literal::Int(v as u64)), Type::Scalar(s))
    }
    fn float(&mut self, s: ScalarType, v: f64) -> Handle<Expr> {
        self.e(ExprKind::Literal(Literal::Float(v)), Type::Scalar(s))
    }
    fn read(&mut self, l: Handle<Local>) -> Handle<Expr> {
        let ty = self.0.locals[l].ty.clone();
        self.e(ExprKind::Local(l), ty)
    }
    fn bin(&mut self, op: BinaryOp, lhs: Handle<Expr>, rhs: Handle<Expr>) -> Handle<Expr> {
        let ty = if op.is_comparison() {
            Type::Scalar(ScalarType::Bool)
        } else {
            self.0.exprs[lhs].ty.clone()
        };
        self.e(ExprKind::Binary { op, lhs, rhs }, ty)
    }
    fn index(&mut self, slice: Handle<Local>, index: Handle<Expr>) -> Handle<Expr> {
        let Type::Slice { elem, .. } = self.0.locals[slice].ty else {
            panic!()
        };
        let slice = self.read(slice);
        self.e(ExprKind::Index { slice, index }, Type::Scalar(elem))
    }
    fn stmt(&mut self, s: Stmt) {
        self.0.body.stmts.push(s);
    }
    fn expr_stmt(&mut self, kind: ExprKind, ty: Type) {
        let e = self.e(kind, ty);
        self.stmt(Stmt::Expr(e));
    }
}

fn slice(elem: ScalarType, mutable: bool) -> Type {
    Type::Slice { elem, mutable }
}
const F32: Type = Type::Scalar(ScalarType::F32);
const USIZE: Type = Type::Scalar(ScalarType::Usize);
const BOOL: Type = Type::Scalar(ScalarType::Bool);

fn module(functions: Vec<F>) -> Module {
    let mut m = Module::default();
    for f in functions {
        m.functions.append(f.0);
    }
    m
}

/// Writes the module, and when the toolchain is configured compiles it for sm_90.
fn write(m: &Module) -> Output {
    let out = write_string(m, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let again = write_string(m, &Options::default()).unwrap();
    assert_eq!(out.text, again.text, "output must be deterministic");
    check_with_toolchain(&out.text);
    out
}

fn check_with_toolchain(text: &str) {
    let (Some(lib), Some(ptxas)) = (
        std::env::var_os("CUDAJIT_NVVM_PATH"),
        std::env::var_os("CUDAJIT_PTXAS"),
    ) else {
        eprintln!("skipped libnvvm/ptxas: CUDAJIT_NVVM_PATH or CUDAJIT_PTXAS not set");
        return;
    };
    let nvvm = crate::nvvm::Nvvm::load_from(std::path::Path::new(&lib)).expect("load libnvvm");
    let ptx = nvvm
        .compile(text, &crate::nvvm::CompileOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n--- module ---\n{text}"));
    let dir = std::env::temp_dir().join(format!(
        "cudajit-back-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx_path = dir.join("m.ptx");
    std::fs::write(&ptx_path, &ptx).unwrap();
    let status = std::process::Command::new(ptxas)
        .args(["-arch=sm_90", "-o"])
        .arg(dir.join("m.cubin"))
        .arg(&ptx_path)
        .output()
        .expect("run ptxas");
    assert!(
        status.status.success(),
        "ptxas: {}\n{ptx}",
        String::from_utf8_lossy(&status.stderr)
    );
}

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
    let then_block = Block {
        stmts: vec![Stmt::Assign {
            place: Place::Index {
                slice: cs,
                index: i3,
            },
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
    assert!(t.contains("define void @vecadd(float* noalias %a, i64 %a.len, float* noalias %b, i64 %b.len, float* noalias %c, i64 %c.len)"), "{t}");
    assert!(t.contains(
        "@__cudajit_panic_slot = addrspace(1) externally_initialized global i64 0, align 8"
    ));
    assert!(t.contains("call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()"));
    assert!(t.contains("fadd float"));
    assert!(t.contains("icmp ult i64"));
    assert!(
        t.contains("!{void (float*, i64, float*, i64, float*, i64)* @vecadd, !\"kernel\", i32 1}")
    );
    assert!(
        t.contains("!nvvmir.version = !{!2}\n!2 = !{i32 2, i32 0, i32 3, i32 2}"),
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
    assert!(t.contains("call void @__cudajit_panic(i32 1, i64 "));
    assert!(t.contains("cmpxchg volatile i32* %flag, i32 0, i32 1 monotonic monotonic"));
    assert!(t.contains("call void asm sideeffect \"exit;\", \"\"()"));
    assert!(!t.contains("trap"));
    assert!(!t.contains("noinline"));
}

#[test]
fn no_bounds_check_no_panic_helper() {
    let mut f = vecadd();
    f.0.options.bounds_check = false;
    let out = write(&module(vec![f]));
    assert!(out.panic_sites.is_empty());
    assert!(!out.text.contains("__cudajit_panic("));
    assert!(out.text.contains("@__cudajit_panic_slot"));
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
        place: Place::Index {
            slice: ov,
            index: zero,
        },
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
        t.contains("define internal float @__cudajit_dev_square(float %x) alwaysinline {"),
        "{t}"
    );
    assert!(
        t.contains("call float @__cudajit_dev_square(float 0x4008000000000000)"),
        "{t}"
    );
    assert!(
        t.contains("define void @k(float* noalias %out, i64 %out.len, i8 %flag)"),
        "{t}"
    );
    assert!(t.contains("icmp ne i8 %flag, 0"));
    assert!(t.contains("!{void (float*, i64, i8)* @k, !\"kernel\", i32 1}"));
    assert!(!t.contains("@__cudajit_dev_square, !\"kernel\""));
}

fn int_ops_kernel(s: ScalarType) -> F {
    let ty = Type::Scalar(s);
    let mut f = F::new("ints", FunctionKind::Kernel);
    let a = f.param("a", ty.clone());
    let b = f.param("b", ty.clone());
    let out = f.param("out", slice(s, true));
    for (k, op) in [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::BitXor,
    ]
    .into_iter()
    .enumerate()
    {
        let (x, y) = (f.read(a), f.read(b));
        let y = if op == BinaryOp::Shl {
            // shift by a u8 amount: converted to the lhs width, then masked
            f.e(
                ExprKind::Cast {
                    operand: y,
                    to: ScalarType::U8,
                },
                Type::Scalar(ScalarType::U8),
            )
        } else {
            y
        };
        let v = f.bin(op, x, y);
        let idx = f.int(ScalarType::Usize, k as i64);
        let o = f.read(out);
        f.stmt(Stmt::Assign {
            place: Place::Index {
                slice: o,
                index: idx,
            },
            op: None,
            value: v,
        });
    }
    for (op, fun) in [(UnaryOp::Neg, 0), (UnaryOp::Not, 1)] {
        let x = f.read(a);
        let v = f.e(ExprKind::Unary { op, operand: x }, ty.clone());
        let idx = f.int(ScalarType::Usize, 10 + fun);
        let o = f.read(out);
        f.stmt(Stmt::Assign {
            place: Place::Index {
                slice: o,
                index: idx,
            },
            op: Some(BinaryOp::Add),
            value: v,
        });
    }
    f
}

#[test]
fn signed_integer_semantics() {
    let mut f = int_ops_kernel(ScalarType::I32);
    f.0.options.bounds_check = false;
    let out = write(&module(vec![f]));
    let t = &out.text;
    assert!(
        t.contains("= add i32 %a.") && !t.contains("nsw") && !t.contains("nuw"),
        "{t}"
    );
    assert!(t.contains("sdiv i32") && t.contains("srem i32") && t.contains("ashr i32"));
    assert!(t.contains("and i32 %shamt, 31"), "{t}");
    assert!(
        t.contains("-2147483648") && t.contains("icmp eq i32 %b.4, -1"),
        "{t}"
    );
    assert!(t.contains("sub i32 0, %a.") && t.contains(", -1\n") && t.contains("= xor i32 %a."));
    let messages: Vec<_> = out.panic_sites.iter().map(|s| s.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "attempt to divide by zero",
            "attempt to divide with overflow",
            "attempt to calculate the remainder with a divisor of zero",
            "attempt to calculate the remainder with overflow"
        ]
    );
}

#[test]
fn unsigned_integer_semantics() {
    let f = int_ops_kernel(ScalarType::U8);
    let out = write(&module(vec![f]));
    let t = &out.text;
    assert!(
        t.contains("udiv i8") && t.contains("urem i8") && t.contains("lshr i8"),
        "{t}"
    );
    assert!(t.contains("= and i8 %b.6, 7"), "{t}");
    // two div checks (zero only) + 10 bounds checks
    assert_eq!(out.panic_sites.len(), 12);
}

#[test]
fn every_cast_compiles() {
    let mut f = F::new("casts", FunctionKind::Kernel);
    let mut sources = Vec::new();
    for s in ScalarType::ALL {
        sources.push((s, f.param(&format!("p_{s}"), Type::Scalar(s))));
    }
    for (from, p) in sources.clone() {
        for to in ScalarType::ALL {
            if to == ScalarType::Bool && from != ScalarType::Bool
                || from == ScalarType::Bool && to.is_float()
            {
                continue;
            }
            let v = f.read(p);
            let c = f.e(ExprKind::Cast { operand: v, to }, Type::Scalar(to));
            let target = f.local(&format!("c_{from}_{to}"), Type::Scalar(to));
            f.stmt(Stmt::Let {
                local: target,
                init: Some(c),
            });
            // feed each result to memory through a same-typed param slot so nothing is dead
            let dst = sources.iter().find(|(s, _)| *s == to).unwrap().1;
            let read = f.read(target);
            f.stmt(Stmt::Assign {
                place: Place::Local(dst),
                op: None,
                value: read,
            });
        }
    }
    let out = write(&module(vec![f]));
    let t = &out.text;
    for name in [
        "__nv_float2int_rz",
        "__nv_float2uint_rz",
        "__nv_float2ll_rz",
        "__nv_float2ull_rz",
        "__nv_double2int_rz",
        "__nv_double2uint_rz",
        "__nv_double2ll_rz",
        "__nv_double2ull_rz",
    ] {
        assert!(t.matches(&format!("@{name}(")).count() > 1, "{name}");
    }
    assert!(t.contains("sitofp i8") && t.contains("uitofp i64") && t.contains("zext i1"));
    assert!(t.contains("fpext float") && t.contains("fptrunc double") && t.contains("sext i16"));
    assert!(
        t.contains("trunc i32 %sel"),
        "8/16-bit float casts clamp then truncate"
    );
}

#[test]
fn math_functions() {
    let all = [
        MathFn::Sqrt,
        MathFn::Rsqrt,
        MathFn::Cbrt,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Atan2,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::ExpM1,
        MathFn::Ln,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Ln1p,
        MathFn::Powf,
        MathFn::Powi,
        MathFn::Hypot,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Round,
        MathFn::Trunc,
        MathFn::Abs,
        MathFn::Min,
        MathFn::Max,
        MathFn::MulAdd,
        MathFn::Copysign,
        MathFn::Signum,
    ];
    for s in [ScalarType::F32, ScalarType::F64] {
        let ty = Type::Scalar(s);
        let mut f = F::new("math", FunctionKind::Kernel);
        let x = f.param("x", ty.clone());
        let n = f.param("n", Type::Scalar(ScalarType::I32));
        for m in all {
            let mut args = vec![f.read(x)];
            for _ in 1..m.arity() {
                args.push(if m == MathFn::Powi {
                    f.read(n)
                } else {
                    f.read(x)
                });
            }
            let v = f.e(
                ExprKind::Intrinsic {
                    intrinsic: Intrinsic::Math(m),
                    args,
                },
                ty.clone(),
            );
            f.stmt(Stmt::Assign {
                place: Place::Local(x),
                op: None,
                value: v,
            });
        }
        let out = write(&module(vec![f]));
        let t = &out.text;
        let sfx = if s == ScalarType::F32 { "f" } else { "" };
        for name in [
            "sin", "log", "log1p", "expm1", "round", "fmin", "fma", "powi", "fabs",
        ] {
            assert_eq!(
                t.matches(&format!("declare {} @__nv_{name}{sfx}(", types::scalar(s)))
                    .count(),
                1,
                "{name}{sfx}\n{t}"
            );
        }
    }
    for (s, v) in [(ScalarType::I32, "slt"), (ScalarType::U64, "ult")] {
        let ty = Type::Scalar(s);
        let mut f = F::new("imath", FunctionKind::Kernel);
        let x = f.param("x", ty.clone());
        for m in [MathFn::Min, MathFn::Max] {
            let args = vec![f.read(x), f.read(x)];
            let e = f.e(
                ExprKind::Intrinsic {
                    intrinsic: Intrinsic::Math(m),
                    args,
                },
                ty.clone(),
            );
            f.stmt(Stmt::Assign {
                place: Place::Local(x),
                op: None,
                value: e,
            });
        }
        let t = write(&module(vec![f])).text;
        assert!(t.contains(&format!("icmp {v}")), "{t}");
    }
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
        id: LoopId(0),
        var: i,
        start,
        end,
        inclusive: true,
        body: Block {
            stmts: vec![
                Stmt::Expr(if_brk),
                Stmt::Assign {
                    place: Place::Local(acc),
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
                    place: Place::Local(acc),
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
        place: Place::Index { slice: o, index: z },
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
        place: Place::Index { slice: o, index: z },
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
        place: Place::Index { slice: o, index: z },
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
fn constants() {
    assert_eq!(types::int_const(ScalarType::U8, 255), "-1");
    assert_eq!(types::int_const(ScalarType::U32, u32::MAX as u64), "-1");
    assert_eq!(types::int_const(ScalarType::I64, (-5i64) as u64), "-5");
    assert_eq!(
        types::float_const(ScalarType::F32, 0.1),
        "0x3FB99999A0000000"
    );
    assert_eq!(
        types::float_const(ScalarType::F64, 1.0),
        "0x3FF0000000000000"
    );
    assert_eq!(types::ident("vecadd"), "vecadd");
    assert_eq!(types::ident("ünï"), "\"\\C3\\BCn\\C3\\AF\"");
}

#[test]
fn fast_math_uses_approximate_libdevice() {
    let mut f = F::new("fast", FunctionKind::Kernel);
    f.0.options.fast_math = true;
    let x = f.param("x", F32);
    let y = f.param("y", Type::Scalar(ScalarType::F64));
    for (local, m) in [(x, MathFn::Sin), (x, MathFn::Sqrt), (y, MathFn::Sin)] {
        let ty = f.0.locals[local].ty.clone();
        let args = vec![f.read(local)];
        let e = f.e(
            ExprKind::Intrinsic {
                intrinsic: Intrinsic::Math(m),
                args,
            },
            ty,
        );
        f.stmt(Stmt::Assign {
            place: Place::Local(local),
            op: None,
            value: e,
        });
    }
    let t = write(&module(vec![f])).text;
    // f32 sin goes fast; sqrt's precision is libnvvm's -prec-sqrt; f64 is never approximated.
    assert!(
        t.contains("call float @__nv_fast_sinf(") && t.contains("call float @__nv_sqrtf("),
        "{t}"
    );
    assert!(t.contains("call double @__nv_sin("), "{t}");
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
        place: Place::Field {
            base: Box::new(Place::Local(t)),
            index: 1,
        },
        op: Some(BinaryOp::Add),
        value: one,
    });
    let tv = f.read(t);
    let second = f.e(ExprKind::Field { base: tv, index: 1 }, USIZE);
    let (o, z) = (f.read(out), f.int(ScalarType::Usize, 0));
    f.stmt(Stmt::Assign {
        place: Place::Index { slice: o, index: z },
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
