//! Operators, casts and math.

use super::*;

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
            place: Place::slice_element(o, idx, Default::default()),
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
            place: Place::slice_element(o, idx, Default::default()),
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
            // Storage-only types (e4m3) cast to nothing but themselves: the front end
            // rejects the rest.
            if to == ScalarType::Bool && from != ScalarType::Bool
                || from == ScalarType::Bool && to.is_float()
                || (from.is_storage_only() || to.is_storage_only()) && from != to
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
                place: Place::local(dst, Default::default()),
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
                place: Place::local(x, Default::default()),
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
                place: Place::local(x, Default::default()),
                op: None,
                value: e,
            });
        }
        let t = write(&module(vec![f])).text;
        assert!(t.contains(&format!("icmp {v}")), "{t}");
    }
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
            place: Place::local(local, Default::default()),
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
