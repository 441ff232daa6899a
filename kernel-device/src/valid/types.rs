//! Type consistency of a function's IR, walked as a tree from the body so that loop
//! targets can be checked against the enclosing loops.

use super::ValidationError;
use crate::ir::{
    self, BinaryOp, Block, ExprKind, Handle, Intrinsic, Literal, Place, PlaceRoot, Projection,
    ScalarType, Stmt, Type,
};

struct Checker<'a> {
    module: &'a ir::Module,
    f: &'a ir::Function,
    errors: &'a mut Vec<ValidationError>,
    /// Enclosing loops: id, whether it is a `loop` (may break with a value), its type.
    loops: Vec<(ir::LoopId, bool, Type)>,
    /// Guards against an expression reachable twice (a malformed tree or a cycle).
    visited: Vec<bool>,
}

pub fn check_function(module: &ir::Module, f: &ir::Function, errors: &mut Vec<ValidationError>) {
    let mut c = Checker {
        module,
        f,
        errors,
        loops: Vec::new(),
        visited: vec![false; f.exprs.len()],
    };
    let body_ty = c.block(&f.body);
    if !fits(&body_ty, &f.ret) {
        let detail = format!(
            "the body has type `{body_ty}` but the function returns `{}`",
            f.ret
        );
        c.mismatch(f.loc, detail);
    }
}

/// `actual` may stand where `expected` is required (`!` coerces to anything, and
/// `&mut [T]` to `&[T]`, as in Rust; both are the same value at run time).
fn fits(actual: &Type, expected: &Type) -> bool {
    actual == expected || *actual == Type::Never || is_view_of(expected, actual)
}

fn scalar(ty: &Type) -> Option<ScalarType> {
    ty.scalar()
}

impl Checker<'_> {
    fn name(&self) -> String {
        self.f.name.clone()
    }

    fn mismatch(&mut self, loc: ir::SourceLoc, detail: String) {
        let function = self.name();
        self.errors.push(ValidationError::TypeMismatch {
            function,
            loc,
            detail,
        });
    }

    fn ty(&self, h: Handle<ir::Expr>) -> Type {
        self.f
            .exprs
            .get(h)
            .map(|e| e.ty.clone())
            .unwrap_or(Type::Never)
    }

    fn local_ty(&mut self, l: Handle<ir::Local>) -> Option<Type> {
        let ty = self.f.locals.get(l).map(|l| l.ty.clone());
        if ty.is_none() {
            let function = self.name();
            self.errors.push(ValidationError::InvalidHandle {
                function,
                what: "local",
                index: l.index(),
            });
        }
        ty
    }

    /// Checks a block and returns its type: the tail's, `!` if a statement diverges, else `()`.
    fn block(&mut self, b: &Block) -> Type {
        let mut diverges = false;
        for s in &b.stmts {
            diverges |= self.stmt(s);
        }
        match b.tail {
            Some(t) => {
                self.expr(t);
                self.ty(t)
            }
            None if diverges => Type::Never,
            None => Type::Unit,
        }
    }

    /// Checks a statement; returns whether it diverges.
    fn stmt(&mut self, s: &Stmt) -> bool {
        match s {
            Stmt::Let { local, init } => {
                let lt = self.local_ty(*local);
                if let Some(init) = init {
                    self.expr(*init);
                    let it = self.ty(*init);
                    if let Some(lt) = lt {
                        if !fits(&it, &lt) {
                            let loc = self.f.loc_of(*init);
                            self.mismatch(
                                loc,
                                format!("`let` of type `{lt}` initialised with `{it}`"),
                            );
                        }
                    }
                    return it == Type::Never;
                }
                false
            }
            Stmt::Assign { place, op, value } => {
                self.expr(*value);
                let vt = self.ty(*value);
                let loc = self.f.loc_of(*value);
                if let Some(pt) = self.place(place, loc, true) {
                    let ok = match op {
                        None => fits(&vt, &pt),
                        Some(BinaryOp::Shl | BinaryOp::Shr) => {
                            scalar(&pt).is_some_and(|s| s.is_integer())
                                && (scalar(&vt).is_some_and(|s| s.is_integer())
                                    || vt == Type::Never)
                        }
                        Some(op) => fits(&vt, &pt) && scalar(&pt).is_some_and(|s| arith_ok(*op, s)),
                    };
                    if !ok {
                        self.mismatch(
                            loc,
                            format!("cannot assign `{vt}` to a place of type `{pt}`"),
                        );
                    }
                }
                vt == Type::Never
            }
            Stmt::Expr(h) => {
                self.expr(*h);
                self.ty(*h) == Type::Never
            }
            // print
            Stmt::Print(p) => {
                p.args.iter().for_each(|h| self.expr(*h));
                p.kind == crate::ir::PrintKind::Panic
            }
            Stmt::While { id, cond, body } => {
                self.expr(*cond);
                self.expect(
                    *cond,
                    &Type::Scalar(ScalarType::Bool),
                    "a `while` condition",
                );
                self.loop_body(*id, false, Type::Unit, body);
                false
            }
            Stmt::ForRange {
                id,
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                self.expr(*start);
                self.expr(*end);
                if let Some(step) = step {
                    self.expr(*step);
                    self.expect(*step, &Type::Scalar(ScalarType::Usize), "a `step_by` step");
                }
                if let Some(vt) = self.local_ty(*var) {
                    if !scalar(&vt).is_some_and(|s| s.is_integer()) {
                        let loc = self.f.loc_of(*start);
                        self.mismatch(
                            loc,
                            format!("a `for` loop variable must be an integer, found `{vt}`"),
                        );
                    }
                    self.expect(*start, &vt, "a range start");
                    self.expect(*end, &vt, "a range end");
                }
                self.loop_body(*id, false, Type::Unit, body);
                false
            }
            // Built by the optimiser, after validation; its copies are checked alike.
            Stmt::Versioned(v) => {
                let fast = self.block(&v.fast) == Type::Never;
                let checked = self.block(&v.checked) == Type::Never;
                fast && checked
            }
            Stmt::PredicatedPrefetch(body) => self.block(body) == Type::Never,
        }
    }

    fn loop_body(&mut self, id: ir::LoopId, is_loop: bool, ty: Type, body: &Block) {
        self.loops.push((id, is_loop, ty));
        let bt = self.block(body);
        if !fits(&bt, &Type::Unit) {
            self.mismatch(
                self.f.loc,
                format!("a loop body must be `()`, found `{bt}`"),
            );
        }
        self.loops.pop();
    }

    fn expect(&mut self, h: Handle<ir::Expr>, expected: &Type, what: &str) {
        let t = self.ty(h);
        if !fits(&t, expected) {
            let loc = self.f.loc_of(h);
            self.mismatch(loc, format!("{what} must be `{expected}`, found `{t}`"));
        }
    }

    /// The type of a place, checking that an assigned place is writable (`write`).
    fn place(&mut self, p: &Place, loc: ir::SourceLoc, write: bool) -> Option<Type> {
        let (mut ty, mut writable) = self.place_root(p.root)?;
        let function = self.name();
        for projection in &p.projections {
            ty = match (projection, ty) {
                (Projection::Index(index), container) => {
                    self.expr(*index);
                    let it = self.ty(*index);
                    if !fits(&it, &Type::Scalar(ScalarType::Usize)) {
                        self.errors.push(ValidationError::Index {
                            function: function.clone(),
                            loc,
                            detail: format!("`{container}` indexed by `{it}`"),
                        });
                    }
                    if let Some((_, mutable)) = container.slice_elem() {
                        writable &= mutable;
                    }
                    match container.index_result() {
                        Some(t) => t,
                        None => {
                            self.errors.push(ValidationError::Index {
                                function,
                                loc,
                                detail: format!("cannot index into `{container}`"),
                            });
                            return None;
                        }
                    }
                }
                (Projection::Field(index), Type::Tuple(items)) => {
                    match items.get(*index as usize) {
                        Some(t) => t.clone(),
                        None => {
                            self.mismatch(loc, format!("tuple field {index} out of range"));
                            return None;
                        }
                    }
                }
                (Projection::Field(index), Type::Struct(def)) => {
                    match def.fields.get(*index as usize) {
                        Some(field) => field.ty.clone(),
                        None => {
                            self.mismatch(
                                loc,
                                format!("field {index} of `{}` out of range", def.name),
                            );
                            return None;
                        }
                    }
                }
                (Projection::Field(index), other) => {
                    self.mismatch(loc, format!("field {index} of non-tuple `{other}`"));
                    return None;
                }
            };
        }
        if write && !writable {
            self.errors
                .push(ValidationError::ImmutablePlace { function, loc });
        }
        Some(ty)
    }

    /// The type of what a place root denotes (for `Pointee` of a slice: the slice) and
    /// whether it may be written.
    fn place_root(&mut self, root: PlaceRoot) -> Option<(Type, bool)> {
        match root {
            PlaceRoot::Local(l) => self.local_ty(l).map(|t| (t, true)),
            PlaceRoot::Global(g) => match self.module.globals.get(g) {
                Some(global) => Some((
                    global.ty.clone(),
                    global.space != ir::AddressSpace::Constant,
                )),
                None => {
                    let function = self.name();
                    self.errors.push(ValidationError::InvalidHandle {
                        function,
                        what: "global",
                        index: g.index(),
                    });
                    None
                }
            },
            PlaceRoot::Pointee(h) => {
                self.expr(h);
                match self.ty(h) {
                    Type::Ref {
                        pointee, mutable, ..
                    } => Some((*pointee, mutable)),
                    slice @ (Type::Slice { .. } | Type::StructSlice { .. }) => Some((slice, true)),
                    other => {
                        let function = self.name();
                        let loc = self.f.loc_of(h);
                        self.errors.push(ValidationError::Index {
                            function,
                            loc,
                            detail: format!("`{other}` points at nothing"),
                        });
                        None
                    }
                }
            }
        }
    }

    fn expr(&mut self, h: Handle<ir::Expr>) {
        let Some(e) = self.f.exprs.get(h) else {
            let function = self.name();
            self.errors.push(ValidationError::InvalidHandle {
                function,
                what: "expression",
                index: h.index(),
            });
            return;
        };
        if std::mem::replace(&mut self.visited[h.index()], true) {
            return;
        }
        let loc = self.f.loc_of(h);
        let ty = e.ty.clone();
        let function = self.name();
        let op_err = |detail: String| ValidationError::Operator {
            function: function.clone(),
            loc,
            detail,
        };
        match &e.kind {
            ExprKind::Literal(lit) => {
                let ok = match lit {
                    Literal::Bool(_) => ty == Type::Scalar(ScalarType::Bool),
                    Literal::Int(_) => scalar(&ty).is_some_and(|s| s.is_integer()),
                    Literal::Float(_) => scalar(&ty).is_some_and(|s| s.is_float()),
                };
                if !ok {
                    self.mismatch(loc, format!("literal {lit:?} cannot have type `{ty}`"));
                }
            }
            ExprKind::Local(l) => {
                if let Some(lt) = self.local_ty(*l) {
                    if lt != ty {
                        self.mismatch(loc, format!("a read of a `{lt}` local has type `{ty}`"));
                    }
                }
            }
            ExprKind::Unary { op, operand } => {
                self.expr(*operand);
                let ot = self.ty(*operand);
                let ok = ot == ty
                    && scalar(&ot).is_some_and(|s| match op {
                        ir::UnaryOp::Neg => s.is_signed_integer() || s.is_float(),
                        ir::UnaryOp::Not => s.is_integer() || s == ScalarType::Bool,
                    });
                if !ok {
                    self.errors
                        .push(op_err(format!("{op:?} of `{ot}` typed `{ty}`")));
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.expr(*lhs);
                self.expr(*rhs);
                let (lt, rt) = (self.ty(*lhs), self.ty(*rhs));
                let ok = match op {
                    BinaryOp::Shl | BinaryOp::Shr => {
                        lt == ty
                            && scalar(&lt).is_some_and(|s| s.is_integer())
                            && scalar(&rt).is_some_and(|s| s.is_integer())
                    }
                    op if op.is_comparison() => {
                        lt == rt && scalar(&lt).is_some() && ty == Type::Scalar(ScalarType::Bool)
                    }
                    op => lt == rt && lt == ty && scalar(&lt).is_some_and(|s| arith_ok(*op, s)),
                };
                if !ok {
                    self.errors
                        .push(op_err(format!("{op:?} on `{lt}` and `{rt}` typed `{ty}`")));
                }
            }
            ExprKind::Logical { lhs, rhs, .. } => {
                self.expr(*lhs);
                self.expr(*rhs);
                let b = Type::Scalar(ScalarType::Bool);
                if !fits(&self.ty(*lhs), &b) || !fits(&self.ty(*rhs), &b) || ty != b {
                    self.errors
                        .push(op_err("`&&`/`||` need `bool` operands".into()));
                }
            }
            ExprKind::Cast { operand, to } => {
                self.expr(*operand);
                let ot = self.ty(*operand);
                let ok = ty == Type::Scalar(*to)
                    && match scalar(&ot) {
                        Some(ScalarType::Bool) => *to == ScalarType::Bool || to.is_integer(),
                        Some(_) => *to != ScalarType::Bool,
                        None => false,
                    };
                if !ok {
                    self.errors.push(ValidationError::Cast {
                        function,
                        loc,
                        detail: format!("cannot cast `{ot}` as `{to}`"),
                    });
                }
            }
            ExprKind::Load(place) => {
                if let Some(pt) = self.place(place, loc, false) {
                    if pt != ty {
                        self.mismatch(loc, format!("a read of a `{pt}` place typed `{ty}`"));
                    }
                }
            }
            ExprKind::AddressOf { place, mutable } => {
                if let Some(pt) = self.place(place, loc, *mutable) {
                    let ok = matches!(&ty, Type::Ref { pointee, mutable: m, .. }
                        if **pointee == pt && m == mutable && matches!(pt, Type::Array { .. }));
                    if !ok {
                        self.mismatch(loc, format!("a reference to a `{pt}` place typed `{ty}`"));
                    }
                }
            }
            ExprKind::RefToSlice(r) => {
                self.expr(*r);
                let rt = self.ty(*r);
                let ok = match (&rt, &ty) {
                    (
                        Type::Ref {
                            pointee, mutable, ..
                        },
                        Type::Slice {
                            elem,
                            mutable: want,
                        },
                    ) => {
                        matches!(&**pointee, Type::Array { elem: e, .. } if **e == Type::Scalar(*elem))
                            && (*mutable || !*want)
                    }
                    _ => false,
                };
                if !ok {
                    self.mismatch(loc, format!("`{rt}` used as the slice `{ty}`"));
                }
            }
            ExprKind::Array(items) => {
                for i in items {
                    self.expr(*i);
                }
                let ok = match &ty {
                    Type::Array { elem, len } => {
                        *len == items.len() as u64 && items.iter().all(|i| fits(&self.ty(*i), elem))
                    }
                    _ => false,
                };
                if !ok {
                    self.mismatch(
                        loc,
                        format!("an array of {} items typed `{ty}`", items.len()),
                    );
                }
            }
            ExprKind::Splat { value, len } => {
                self.expr(*value);
                let vt = self.ty(*value);
                let ok = matches!(&ty, Type::Array { elem, len: l } if fits(&vt, elem) && l == len);
                if !ok {
                    self.mismatch(loc, format!("`[{vt}; {len}]` typed `{ty}`"));
                }
            }
            ExprKind::Len(s) => {
                self.expr(*s);
                let st = self.ty(*s);
                if st.slice_elem().is_none() || ty != Type::Scalar(ScalarType::Usize) {
                    self.errors.push(ValidationError::Index {
                        function,
                        loc,
                        detail: format!("`len` of `{st}` typed `{ty}`"),
                    });
                }
            }
            ExprKind::SubSlice {
                slice,
                start,
                end,
                inclusive,
            } => {
                self.expr(*slice);
                let mut bounds_ok = !*inclusive || end.is_some();
                for b in [start, end].into_iter().flatten() {
                    self.expr(*b);
                    bounds_ok &= self.ty(*b) == Type::Scalar(ScalarType::Usize);
                }
                let st = self.ty(*slice);
                if !bounds_ok || !is_view_of(&ty, &st) {
                    self.errors.push(ValidationError::Index {
                        function,
                        loc,
                        detail: format!("sub-slice of `{st}` typed `{ty}` (bounds must be `usize`; `..=` needs an end; a mutable view needs a mutable slice)"),
                    });
                }
            }
            ExprKind::SplitAt { slice, mid } => {
                self.expr(*slice);
                self.expr(*mid);
                let st = self.ty(*slice);
                let ok = self.ty(*mid) == Type::Scalar(ScalarType::Usize)
                    && matches!(&ty, Type::Tuple(halves) if halves.len() == 2
                        && halves[0] == halves[1]
                        && is_view_of(&halves[0], &st));
                if !ok {
                    self.errors.push(ValidationError::Index {
                        function,
                        loc,
                        detail: format!("`split_at` of `{st}` typed `{ty}`"),
                    });
                }
            }
            ExprKind::DynamicSharedTake {
                cursor,
                elem,
                count,
            } => {
                self.expr(*count);
                let cursor_ok = self
                    .f
                    .locals
                    .get(*cursor)
                    .is_some_and(|l| l.ty == Type::DynamicShared && l.mutable);
                let ok = cursor_ok
                    && self.ty(*count) == Type::Scalar(ScalarType::Usize)
                    && ty
                        == (Type::Slice {
                            elem: *elem,
                            mutable: true,
                        });
                if !ok {
                    self.errors.push(ValidationError::DynamicShared {
                        function,
                        loc,
                        detail: format!("`take::<{elem}>` typed `{ty}` needs a `let mut` cursor of `dynamic_shared()` and a `usize` count"),
                    });
                }
            }
            ExprKind::Tuple(items) => {
                for i in items {
                    self.expr(*i);
                }
                let tys: Vec<Type> = items.iter().map(|i| self.ty(*i)).collect();
                let ok = match &ty {
                    Type::Unit => items.is_empty(),
                    Type::Tuple(expected) => {
                        expected.len() == tys.len()
                            && tys.iter().zip(expected).all(|(a, e)| fits(a, e))
                    }
                    // A struct literal: its fields in declaration order.
                    Type::Struct(def) => {
                        def.fields.len() == tys.len()
                            && tys.iter().zip(&def.fields).all(|(a, f)| fits(a, &f.ty))
                    }
                    _ => false,
                };
                if !ok {
                    self.mismatch(loc, format!("a tuple of {} items typed `{ty}`", tys.len()));
                }
            }
            ExprKind::Field { base, index } => {
                self.expr(*base);
                let bt = self.ty(*base);
                let ok = match &bt {
                    Type::Tuple(items) => items.get(*index as usize) == Some(&ty),
                    Type::Struct(def) => {
                        def.fields.get(*index as usize).map(|f| &f.ty) == Some(&ty)
                    }
                    _ => false,
                };
                if !ok {
                    self.mismatch(loc, format!("field {index} of `{bt}` typed `{ty}`"));
                }
            }
            ExprKind::Call {
                function: callee,
                args,
            } => {
                for a in args {
                    self.expr(*a);
                }
                self.call(*callee, args, &ty, loc);
            }
            ExprKind::Intrinsic { intrinsic, args } => {
                for a in args {
                    self.expr(*a);
                }
                let tys: Vec<Type> = args.iter().map(|a| self.ty(*a)).collect();
                if let Err(detail) = intrinsic_ok(*intrinsic, &tys, &ty) {
                    self.errors.push(ValidationError::Intrinsic {
                        function,
                        loc,
                        detail,
                    });
                }
            }
            ExprKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.expr(*cond);
                self.expect(*cond, &Type::Scalar(ScalarType::Bool), "an `if` condition");
                let tt = self.block(then_block);
                let et = match else_block {
                    Some(b) => self.block(b),
                    None => Type::Unit,
                };
                let ok = fits(&tt, &ty)
                    && fits(&et, &ty)
                    && (else_block.is_some() || ty == Type::Unit || ty == Type::Never);
                if !ok {
                    self.mismatch(
                        loc,
                        format!("`if` typed `{ty}` has branches `{tt}` and `{et}`"),
                    );
                }
            }
            ExprKind::Loop { id, body } => self.loop_body(*id, true, ty, body),
            ExprKind::Break { target, value } => {
                if let Some(v) = value {
                    self.expr(*v);
                }
                match self
                    .loops
                    .iter()
                    .rev()
                    .find(|(id, ..)| id == target)
                    .cloned()
                {
                    None => self.errors.push(ValidationError::LoopTarget {
                        function,
                        loc,
                        detail: format!("`break` to {target:?}, which does not enclose it"),
                    }),
                    Some((_, is_loop, loop_ty)) => match value {
                        Some(_) if !is_loop => self.errors.push(ValidationError::LoopTarget {
                            function,
                            loc,
                            detail: "`break` with a value out of a `while`/`for` loop".into(),
                        }),
                        Some(v) => self.expect(*v, &loop_ty, "a `break` value"),
                        None if is_loop
                            && !fits(&Type::Unit, &loop_ty)
                            && loop_ty != Type::Never =>
                        {
                            self.mismatch(
                                loc,
                                format!(
                                    "`break` without a value out of a loop of type `{loop_ty}`"
                                ),
                            )
                        }
                        None => {}
                    },
                }
                if ty != Type::Never {
                    self.mismatch(loc, "`break` must have type `!`".into());
                }
            }
            ExprKind::Continue { target } => {
                if !self.loops.iter().any(|(id, ..)| id == target) {
                    self.errors.push(ValidationError::LoopTarget {
                        function,
                        loc,
                        detail: format!("`continue` to {target:?}, which does not enclose it"),
                    });
                }
            }
            ExprKind::Return(value) => {
                let ret = self.f.ret.clone();
                match value {
                    Some(v) => {
                        self.expr(*v);
                        self.expect(*v, &ret, "the returned value");
                    }
                    None if ret != Type::Unit => self.mismatch(
                        loc,
                        format!("`return` without a value from a function returning `{ret}`"),
                    ),
                    None => {}
                }
            }
            ExprKind::Block(b) => {
                let bt = self.block(b);
                if !fits(&bt, &ty) {
                    self.mismatch(loc, format!("a block of type `{bt}` typed `{ty}`"));
                }
            }
        }
    }

    fn call(
        &mut self,
        callee: Handle<ir::Function>,
        args: &[Handle<ir::Expr>],
        ty: &Type,
        loc: ir::SourceLoc,
    ) {
        let function = self.name();
        let Some(target) = self.module.functions.get(callee) else {
            self.errors.push(ValidationError::InvalidHandle {
                function,
                what: "function",
                index: callee.index(),
            });
            return;
        };
        if target.kind == ir::FunctionKind::Kernel {
            self.errors.push(ValidationError::Call {
                function: function.clone(),
                loc,
                detail: format!("kernel `{}` cannot be called from device code", target.name),
            });
        }
        if target.params.len() != args.len() {
            self.errors.push(ValidationError::Call {
                function,
                loc,
                detail: format!(
                    "`{}` takes {} arguments, {} given",
                    target.name,
                    target.params.len(),
                    args.len()
                ),
            });
            return;
        }
        for (a, p) in args.iter().zip(&target.params) {
            let at = self.ty(*a);
            // A reference in any space to a generic-pointer parameter (a device fn's
            // `&mut [[T; N]; M]`): the call converts it.
            let to_generic = matches!(
                (&at, &p.ty),
                (
                    Type::Ref { pointee: p1, mutable: m1, .. },
                    Type::Ref { pointee: p2, mutable: m2, space: ir::AddressSpace::Generic },
                ) if p1 == p2 && (*m1 || !*m2)
            );
            let coerces = to_generic
                || matches!((at.slice_elem(), p.ty.slice_elem()), (Some((e1, true)), Some((e2, false))) if e1 == e2);
            if !fits(&at, &p.ty) && !coerces {
                self.errors.push(ValidationError::Call {
                    function: function.clone(),
                    loc,
                    detail: format!(
                        "argument `{}` of `{}` is `{}`, given `{at}`",
                        p.name, target.name, p.ty
                    ),
                });
            }
        }
        if *ty != target.ret {
            self.errors.push(ValidationError::Call {
                function,
                loc,
                detail: format!(
                    "a call of `{}` typed `{ty}`, returns `{}`",
                    target.name, target.ret
                ),
            });
        }
    }
}

/// `view` is a sub-slice type of `slice`: the same element type, mutable only if
/// `slice` is.
fn is_view_of(view: &Type, slice: &Type) -> bool {
    match (view, slice) {
        (
            Type::Slice { elem, mutable },
            Type::Slice {
                elem: from,
                mutable: from_mutable,
            },
        ) => elem == from && (!*mutable || *from_mutable),
        _ => false,
    }
}

fn arith_ok(op: BinaryOp, s: ScalarType) -> bool {
    crate::proc::operators::binary_operand_class(op).allows(s)
}

fn intrinsic_ok(i: Intrinsic, args: &[Type], ty: &Type) -> Result<(), String> {
    let name = match i {
        Intrinsic::Math(f) => format!("{f:?}"),
        other => format!("{other:?}"),
    };
    crate::proc::intrinsics::signature(i).check(&name, args, ty)
}
