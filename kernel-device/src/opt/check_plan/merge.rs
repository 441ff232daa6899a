//! Checks whose indices differ by a compile-time constant, merged: of a group of
//! indices `x + c` into one slice (the same `x`, constants `c`), the guard compares
//! only the lowest and the highest; the others' comparisons are dropped from the plan.
//!
//! Why: an epilogue stores a warp's accumulators at `row + col` and `row + 8 * D + col`
//! for every tile `i` (`col = 8 i + 2 t`), each pair checked at its first and last
//! element, and a FlashAttention key loop copies its K and V tiles at `src + p * pass`:
//! attention D64's guards made 64 and 32 comparisons where two per slice decide them
//! (and the GEMMs' epilogues 16 strided checks where 16 single comparisons do). This
//! did not move the checked kernels' time on the H200 (bench/results/
//! 2026-11-30-h200-78f9725-tc.txt): D64's key loop keeps its 59 register moves and its
//! spill, which come from elsewhere.
//!
//! Exact, not conservative: with `low = x + cmin` and `high = x + cmax` (wrapping
//! 64-bit arithmetic) below the length, `low < isize::MAX` and `cmax - cmin` is small,
//! so `low + d` does not wrap for `0 <= d <= cmax - cmin` and every member lies between
//! `low` and `high`; and if every member is below the length, so are `low` and `high`.
//! A strided or across-the-loop check (`Record` at the first element, a comparison at
//! the second) merges the same way when its index has the same offset at both
//! elements: then every member's value at each element is the low one's plus it.
//!
//! The offsets come from [`Linear`], each index as a sum of constant multiples of
//! *atoms* (values the guard computes but this analysis does not split) and a
//! constant, in wrapping 64-bit arithmetic. An atom is named by what it is and the
//! values of the literal loop variables it depends on, so two atoms with one name hold
//! one value wherever the guard computes them in one walk of the run.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{GuardOp, Length, LoopBound, Planner};
use crate::ir::{BinaryOp, Expr, ExprKind, Handle, Literal, Local, UnaryOp};

/// The largest offset between two merged indices: far below `2^63`, so that `low + d`
/// cannot wrap once `low` is below a length.
const MAX_SPREAD: u64 = 1 << 40;

/// A value the guard computes that [`Linear`] does not split: a local the run does not
/// define (or the guarded loop's variable), or an expression, with the values of the
/// literal loop variables it depends on (`None`: the guarded loop's variable).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Atom {
    root: AtomRoot,
    at: Vec<(Handle<Local>, Option<u64>)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum AtomRoot {
    Local(Handle<Local>),
    Expr(Handle<Expr>),
}

/// `constant + Σ coefficient · atom`, wrapping in 64 bits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Linear {
    constant: u64,
    terms: BTreeMap<Atom, u64>,
}

impl Linear {
    fn constant(c: u64) -> Self {
        Linear {
            constant: c,
            terms: BTreeMap::new(),
        }
    }

    fn atom(atom: Atom) -> Self {
        Linear {
            constant: 0,
            terms: BTreeMap::from([(atom, 1)]),
        }
    }

    fn add(mut self, other: Linear) -> Self {
        self.constant = self.constant.wrapping_add(other.constant);
        for (atom, c) in other.terms {
            let slot = self.terms.entry(atom).or_insert(0);
            *slot = slot.wrapping_add(c);
        }
        self.terms.retain(|_, c| *c != 0);
        self
    }

    fn scale(mut self, by: u64) -> Self {
        self.constant = self.constant.wrapping_mul(by);
        for c in self.terms.values_mut() {
            *c = c.wrapping_mul(by);
        }
        self.terms.retain(|_, c| *c != 0);
        self
    }

    fn as_constant(&self) -> Option<u64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// Whether the literal loop variable `var` is inside one of the atoms (not only in
    /// the constant).
    fn atoms_depend_on(&self, var: Handle<Local>) -> bool {
        self.terms
            .keys()
            .any(|a| a.at.iter().any(|(v, _)| *v == var))
    }
}

/// What a merged comparison is compared with, beyond its index's atoms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Against {
    /// A plain check (`GuardOp::Check`) of the loop guard's walk `phase` (0 in a run).
    Check { phase: u8 },
    /// A strided check over a literal loop of `trips` elements: the index's atoms at
    /// its first element, then at its second.
    Strided { trips: u64, first: Vec<(Atom, u64)> },
    /// A check across the guarded loop under `bound`: the atoms at its first element.
    Across {
        bound: Option<(u64, Handle<Expr>, bool, u64)>,
        first: Vec<(Atom, u64)>,
    },
}

/// A slice's length, or a constant one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum LengthKey {
    Const(u64),
    Slice(Atom),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct GroupKey {
    atoms: Vec<(Atom, u64)>,
    len: LengthKey,
    against: Against,
}

/// A member of a group: its offset from the group's first member and its guard steps.
#[derive(Clone, Copy, Debug)]
struct Member {
    offset: i64,
    /// The comparison, and the `Record` of its first value for strided and across ones.
    ops: (usize, Option<usize>),
}

#[derive(Debug)]
struct Group {
    base: u64,
    low: Member,
    high: Member,
}

/// The groups of a plan being built, and the guard steps they made redundant.
#[derive(Debug, Default)]
pub(super) struct Merger {
    groups: HashMap<GroupKey, Group>,
    /// The index recorded by each `Record` (its slot), as a linear form, and its step.
    records: HashMap<usize, (Linear, usize)>,
    dropped: HashSet<usize>,
}

impl Planner<'_> {
    /// `index` as a linear form, if it is a 64-bit integer the guard computes here.
    pub(super) fn linear(&self, h: Handle<Expr>) -> Linear {
        let e = self.expr(h);
        let wide =
            e.ty.scalar()
                .is_some_and(|s| s.is_integer() && s.bits() == 64);
        if !wide {
            return Linear::atom(self.expr_atom(h));
        }
        let known = self.pure(h);
        if let Some(c) = known.as_ref().and_then(|k| k.constant) {
            return Linear::constant(c);
        }
        // A value the ranges pin (`let pass = 16 * 64` before a loop): the same wherever
        // the guard computes it, as long as no loop variable the guard sets reaches it.
        if let Some(i) = known
            .filter(|k| k.deps.is_empty())
            .and_then(|_| self.ranges.interval(h))
            .filter(|i| i.min == i.max)
        {
            return Linear::constant(i.min);
        }
        match &e.kind {
            ExprKind::Literal(Literal::Int(bits)) => Linear::constant(*bits),
            ExprKind::Local(l) => self.local_linear(*l),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => self.linear(*operand).scale(u64::MAX),
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.linear(*lhs), self.linear(*rhs));
                match op {
                    BinaryOp::Add => l.add(r),
                    BinaryOp::Sub => l.add(r.scale(u64::MAX)),
                    BinaryOp::Mul => match (l.as_constant(), r.as_constant()) {
                        (_, Some(c)) => l.scale(c),
                        (Some(c), None) => r.scale(c),
                        (None, None) => Linear::atom(self.expr_atom(h)),
                    },
                    BinaryOp::Shl => match r.as_constant() {
                        Some(c) => l.scale(1u64 << (c % 64)),
                        None => Linear::atom(self.expr_atom(h)),
                    },
                    _ => Linear::atom(self.expr_atom(h)),
                }
            }
            ExprKind::Cast { operand, .. }
                if self
                    .expr(*operand)
                    .ty
                    .scalar()
                    .is_some_and(|s| s.is_integer() && s.bits() == 64) =>
            {
                self.linear(*operand)
            }
            _ => Linear::atom(self.expr_atom(h)),
        }
    }

    /// A local's value: its constant, its pre-executed `let`'s initialiser, or itself.
    fn local_linear(&self, l: Handle<Local>) -> Linear {
        if let Some(c) = self.known.get(&l).and_then(|k| k.constant) {
            return Linear::constant(c);
        }
        if self.defined.contains(&l) && self.known.contains_key(&l) {
            if let Some(init) = self.let_inits.get(&l) {
                return self.linear(*init);
            }
        }
        Linear::atom(Atom {
            root: AtomRoot::Local(l),
            at: self.loop_values(self.known.get(&l).map(|k| &k.deps)),
        })
    }

    fn expr_atom(&self, h: Handle<Expr>) -> Atom {
        let deps = self.pure(h).map(|k| k.deps);
        Atom {
            root: AtomRoot::Expr(h),
            at: self.loop_values(deps.as_ref()),
        }
    }

    /// The current values of the loop variables `deps` (`None`: the guarded loop's).
    fn loop_values(
        &self,
        deps: Option<&std::collections::BTreeSet<Handle<Local>>>,
    ) -> Vec<(Handle<Local>, Option<u64>)> {
        deps.into_iter()
            .flatten()
            .map(|v| (*v, self.known.get(v).and_then(|k| k.constant)))
            .collect()
    }

    fn length_key(&self, len: &Length) -> LengthKey {
        match len {
            Length::Const(n) => LengthKey::Const(*n),
            Length::OfSlice(h) => LengthKey::Slice(match self.expr(*h).kind {
                ExprKind::Local(l) if !self.defined.contains(&l) => Atom {
                    root: AtomRoot::Local(l),
                    at: Vec::new(),
                },
                _ => self.expr_atom(*h),
            }),
        }
    }

    /// Whether `index` depends on the literal loop variable `var` only through constant
    /// offsets: then each element's check is a plain one that [`Merger`] merges, which
    /// costs less than a strided check.
    pub(super) fn offset_only_in(&self, index: Handle<Expr>, var: Handle<Local>) -> bool {
        !self.linear(index).atoms_depend_on(var)
    }

    /// Notes the plain check just pushed as step `op`.
    pub(super) fn merge_check(&mut self, op: usize, index: Handle<Expr>, len: &Length) {
        let linear = self.linear(index);
        let phase = self.across_phase().unwrap_or(0);
        let key = GroupKey {
            atoms: linear.terms.into_iter().collect(),
            len: self.length_key(len),
            against: Against::Check { phase },
        };
        self.join_group(key, linear.constant, (op, None));
    }

    /// Notes the `Record` of `index` just pushed as step `op`, in `slot`.
    pub(super) fn merge_record(&mut self, op: usize, slot: usize, index: Handle<Expr>) {
        let linear = self.linear(index);
        self.merger.records.insert(slot, (linear, op));
    }

    /// Notes the strided or across check of `index` just pushed as step `op`, whose first
    /// value is in `slot`: `trips` for a literal loop's, `bound` for the guarded loop's.
    pub(super) fn merge_pair(
        &mut self,
        op: usize,
        slot: usize,
        index: Handle<Expr>,
        len: &Length,
        across: Option<&Option<LoopBound>>,
        trips: u64,
    ) {
        let Some((first, record)) = self.merger.records.get(&slot).cloned() else {
            return;
        };
        let second = self.linear(index);
        if first.constant != second.constant {
            return;
        }
        let first: Vec<_> = first.terms.into_iter().collect();
        let against = match across {
            Some(bound) => Against::Across {
                bound: bound
                    .as_ref()
                    .map(|b| (b.offset, b.limit, b.inclusive, b.top)),
                first,
            },
            None => Against::Strided { trips, first },
        };
        let key = GroupKey {
            atoms: second.terms.into_iter().collect(),
            len: self.length_key(len),
            against,
        };
        self.join_group(key, second.constant, (op, Some(record)));
    }

    fn join_group(&mut self, key: GroupKey, constant: u64, ops: (usize, Option<usize>)) {
        let before = self.merger.dropped.len();
        self.join(key, constant, ops);
        // A dropped step compares nothing: the guard's bound counts what it keeps.
        let dropped = self.merger.dropped.len() - before;
        self.compares = self.compares.saturating_sub(dropped);
    }

    fn join(&mut self, key: GroupKey, constant: u64, ops: (usize, Option<usize>)) {
        let merger = &mut self.merger;
        let Some(group) = merger.groups.get_mut(&key) else {
            let member = Member { offset: 0, ops };
            merger.groups.insert(
                key,
                Group {
                    base: constant,
                    low: member,
                    high: member,
                },
            );
            return;
        };
        let offset = constant.wrapping_sub(group.base) as i64;
        let spread = |a: i64, b: i64| {
            a.checked_sub(b)
                .is_some_and(|d| d.unsigned_abs() <= MAX_SPREAD)
        };
        if !spread(offset, group.low.offset) || !spread(offset, group.high.offset) {
            return;
        }
        let member = Member { offset, ops };
        let drop = |m: Member, dropped: &mut HashSet<usize>| {
            dropped.insert(m.ops.0);
            dropped.extend(m.ops.1);
        };
        if offset < group.low.offset {
            if group.low.ops != group.high.ops {
                drop(group.low, &mut merger.dropped);
            }
            group.low = member;
        } else if offset > group.high.offset {
            if group.low.ops != group.high.ops {
                drop(group.high, &mut merger.dropped);
            }
            group.high = member;
        } else {
            drop(member, &mut merger.dropped);
        }
    }

    /// Removes the steps the merged groups made redundant from the plan.
    pub(super) fn drop_merged(&mut self) {
        let dropped = std::mem::take(&mut self.merger.dropped);
        if dropped.is_empty() {
            return;
        }
        let ops = std::mem::take(&mut self.plan.ops);
        self.plan.ops = ops
            .into_iter()
            .enumerate()
            .filter(|(i, op)| {
                !dropped.contains(i)
                    || !matches!(
                        op,
                        GuardOp::Check { .. }
                            | GuardOp::Record { .. }
                            | GuardOp::CheckStrided { .. }
                            | GuardOp::CheckAcross { .. }
                    )
            })
            .map(|(_, op)| op)
            .collect();
    }
}
