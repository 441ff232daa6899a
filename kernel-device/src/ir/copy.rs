//! Deep copies of code inside one function: every expression reached gets a fresh
//! handle (with its source location, and its place in `unchecked_indices` and
//! `predicated_loads` when the
//! original has one), so that a copy can differ from its original in which checks it
//! makes. Locals and loop ids are shared: the copies built by the optimiser never run
//! at the same time as their original.

use std::collections::{HashMap, HashSet};

use super::guard::{Guard, GuardOp, Length, LoopBound, Versioned};
use super::{Block, Expr, ExprKind, Function, Handle, Place, PlaceRoot, Projection, Stmt};

/// Copies code of `func`; each original expression is copied once per copier, so an
/// expression shared by a guard and its code stays shared in the copy.
pub struct Copier<'f> {
    func: &'f mut Function,
    copies: HashMap<Handle<Expr>, Handle<Expr>>,
    /// Indices (original handles) whose copies are not checked, beyond those the
    /// function already leaves unchecked.
    unchecked: &'f HashSet<Handle<Expr>>,
}

impl<'f> Copier<'f> {
    pub fn new(func: &'f mut Function, unchecked: &'f HashSet<Handle<Expr>>) -> Self {
        Copier {
            func,
            copies: HashMap::new(),
            unchecked,
        }
    }

    /// Each copied expression with its original.
    pub fn copies(&self) -> impl Iterator<Item = (Handle<Expr>, Handle<Expr>)> + '_ {
        self.copies
            .iter()
            .map(|(original, copy)| (*copy, *original))
    }

    pub fn block(&mut self, block: &Block) -> Block {
        Block {
            stmts: block.stmts.iter().map(|s| self.stmt(s)).collect(),
            tail: block.tail.map(|t| self.expr(t)),
        }
    }

    pub fn stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt {
            Stmt::Let { local, init } => Stmt::Let {
                local: *local,
                init: init.map(|h| self.expr(h)),
            },
            Stmt::Assign { place, op, value } => Stmt::Assign {
                place: self.place(place),
                op: *op,
                value: self.expr(*value),
            },
            Stmt::Expr(e) => Stmt::Expr(self.expr(*e)),
            // print
            Stmt::Print(p) => Stmt::Print(Box::new(super::PrintStmt {
                args: p.args.iter().map(|h| self.expr(*h)).collect(),
                ..(**p).clone()
            })),
            Stmt::While { id, cond, body } => Stmt::While {
                id: *id,
                cond: self.expr(*cond),
                body: self.block(body),
            },
            Stmt::ForRange {
                id,
                var,
                start,
                end,
                inclusive,
                step,
                reverse,
                unroll,
                body,
            } => Stmt::ForRange {
                id: *id,
                var: *var,
                start: self.expr(*start),
                end: self.expr(*end),
                inclusive: *inclusive,
                step: step.map(|h| self.expr(h)),
                reverse: *reverse,
                unroll: *unroll,
                body: self.block(body),
            },
            Stmt::Versioned(v) => Stmt::Versioned(Box::new(Versioned {
                guard: self.guard(&v.guard),
                fast: self.block(&v.fast),
                checked: self.block(&v.checked),
                kind: v.kind,
            })),
            Stmt::PredicatedPrefetch(body) => Stmt::PredicatedPrefetch(self.block(body)),
        }
    }

    pub fn guard(&mut self, guard: &Guard) -> Guard {
        let len = |c: &mut Self, l: &Length| match l {
            Length::Const(n) => Length::Const(*n),
            Length::OfSlice(h) => Length::OfSlice(c.expr(*h)),
        };
        let ops = guard
            .ops
            .iter()
            .map(|op| match op {
                GuardOp::PreLet { local, init } => GuardOp::PreLet {
                    local: *local,
                    init: self.expr(*init),
                },
                GuardOp::SetVar { local, bits } => GuardOp::SetVar {
                    local: *local,
                    bits: *bits,
                },
                GuardOp::Check { index, len: l } => GuardOp::Check {
                    index: self.expr(*index),
                    len: len(self, l),
                },
                GuardOp::Record { index, slot } => GuardOp::Record {
                    index: self.expr(*index),
                    slot: *slot,
                },
                GuardOp::CheckStrided {
                    index,
                    len: l,
                    slot,
                    trips,
                } => GuardOp::CheckStrided {
                    index: self.expr(*index),
                    len: len(self, l),
                    slot: *slot,
                    trips: *trips,
                },
                GuardOp::SetLoopVar { local, second } => GuardOp::SetLoopVar {
                    local: *local,
                    second: *second,
                },
                GuardOp::CheckAcross {
                    index,
                    len: l,
                    slot,
                    bound,
                } => GuardOp::CheckAcross {
                    index: self.expr(*index),
                    len: len(self, l),
                    slot: *slot,
                    bound: bound.as_ref().map(|b| LoopBound {
                        offset: b.offset,
                        limit: self.expr(b.limit),
                        inclusive: b.inclusive,
                        top: b.top,
                    }),
                },
            })
            .collect();
        Guard {
            ops,
            block_uniform: guard.block_uniform,
        }
    }

    pub fn place(&mut self, place: &Place) -> Place {
        Place {
            root: match place.root {
                PlaceRoot::Pointee(h) => PlaceRoot::Pointee(self.expr(h)),
                other => other,
            },
            projections: place
                .projections
                .iter()
                .map(|p| match p {
                    Projection::Index(i) => Projection::Index(self.expr(*i)),
                    Projection::Field(f) => Projection::Field(*f),
                })
                .collect(),
            loc: place.loc,
        }
    }

    /// The copy of expression `h` (made on first use).
    pub fn expr(&mut self, h: Handle<Expr>) -> Handle<Expr> {
        if let Some(copy) = self.copies.get(&h) {
            return *copy;
        }
        let Some(original) = self.func.exprs.get(h).cloned() else {
            return h;
        };
        let kind = self.kind(&original.kind);
        let loc = self.func.loc_of(h);
        let copy = self.func.add_expr(
            Expr {
                kind,
                ty: original.ty,
            },
            loc,
        );
        if self.func.unchecked_indices.contains(&h) || self.unchecked.contains(&h) {
            self.func.unchecked_indices.insert(copy);
        }
        // A copied predicated load stays predicated, on the same `if`'s condition.
        if let Some(&cond) = self.func.predicated_loads.get(&h) {
            self.func.predicated_loads.insert(copy, cond);
        }
        self.copies.insert(h, copy);
        copy
    }

    fn kind(&mut self, kind: &ExprKind) -> ExprKind {
        let all = |c: &mut Self, hs: &[Handle<Expr>]| hs.iter().map(|h| c.expr(*h)).collect();
        match kind {
            ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::Continue { .. } => kind.clone(),
            ExprKind::Unary { op, operand } => ExprKind::Unary {
                op: *op,
                operand: self.expr(*operand),
            },
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op: *op,
                lhs: self.expr(*lhs),
                rhs: self.expr(*rhs),
            },
            ExprKind::Logical { op, lhs, rhs } => ExprKind::Logical {
                op: *op,
                lhs: self.expr(*lhs),
                rhs: self.expr(*rhs),
            },
            ExprKind::Cast { operand, to } => ExprKind::Cast {
                operand: self.expr(*operand),
                to: *to,
            },
            ExprKind::Load(place) => ExprKind::Load(self.place(place)),
            ExprKind::AddressOf { place, mutable } => ExprKind::AddressOf {
                place: self.place(place),
                mutable: *mutable,
            },
            ExprKind::RefToSlice(x) => ExprKind::RefToSlice(self.expr(*x)),
            ExprKind::Len(x) => ExprKind::Len(self.expr(*x)),
            ExprKind::SubSlice {
                slice,
                start,
                end,
                inclusive,
            } => ExprKind::SubSlice {
                slice: self.expr(*slice),
                start: start.map(|h| self.expr(h)),
                end: end.map(|h| self.expr(h)),
                inclusive: *inclusive,
            },
            ExprKind::SplitAt { slice, mid } => ExprKind::SplitAt {
                slice: self.expr(*slice),
                mid: self.expr(*mid),
            },
            ExprKind::DynamicSharedTake {
                cursor,
                elem,
                count,
            } => ExprKind::DynamicSharedTake {
                cursor: *cursor,
                elem: *elem,
                count: self.expr(*count),
            },
            ExprKind::Array(items) => ExprKind::Array(all(self, items)),
            ExprKind::Splat { value, len } => ExprKind::Splat {
                value: self.expr(*value),
                len: *len,
            },
            ExprKind::Tuple(items) => ExprKind::Tuple(all(self, items)),
            ExprKind::Field { base, index } => ExprKind::Field {
                base: self.expr(*base),
                index: *index,
            },
            ExprKind::Call { function, args } => ExprKind::Call {
                function: *function,
                args: all(self, args),
            },
            ExprKind::Intrinsic { intrinsic, args } => ExprKind::Intrinsic {
                intrinsic: *intrinsic,
                args: all(self, args),
            },
            ExprKind::If {
                cond,
                then_block,
                else_block,
            } => ExprKind::If {
                cond: self.expr(*cond),
                then_block: self.block(then_block),
                else_block: else_block.as_ref().map(|b| self.block(b)),
            },
            ExprKind::Loop { id, body } => ExprKind::Loop {
                id: *id,
                body: self.block(body),
            },
            ExprKind::Break { target, value } => ExprKind::Break {
                target: *target,
                value: value.map(|h| self.expr(h)),
            },
            ExprKind::Return(value) => ExprKind::Return(value.map(|h| self.expr(h))),
            ExprKind::Block(b) => ExprKind::Block(self.block(b)),
        }
    }
}
