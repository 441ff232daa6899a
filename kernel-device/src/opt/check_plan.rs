//! Which bounds checks of a straight-line run of statements can be decided before the
//! run starts (the analysis half of the NVVM writer's `versioning`).
//!
//! A run is a maximal sequence of *simple* statements: no control flow of their own
//! (no `if`, `while`, `loop`, `break`, `return`, short-circuit `&&`/`||`), no barrier
//! or warp-collective operation, no call, except `for` loops over literal ranges of at
//! most [`MAX_TRIPS`] elements whose bodies are simple too. Such a run executes every
//! one of its statements (unless it panics). The plan lists, in order, what the guard
//! must do to compute every index that is a *pure* function of values known at the
//! run's start: pre-executing immutable `let`s with pure initialisers, setting each
//! literal loop's variable to each of its elements, and comparing each index with its
//! length. Indices that read memory, or locals the run assigns before them, are not
//! planned; their checks stay where they are.
//!
//! Indices that are constants once the loop variables are (`acc[m][j]`, `a_s[k][..]`'s
//! first index) are decided here, at compile time, and cost the guard nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::ir::range::RangeElements;
use crate::ir::visit::{assigned_in_block, assigned_in_stmt, visit_children};
use crate::ir::{
    BinaryOp, Block, Expr, ExprKind, Function, Handle, Intrinsic, Literal, Local, Module, Place,
    PlaceRoot, Projection, ScalarType, Stmt, Type, UnaryOp,
};
use crate::opt::effects::{is_thread_constant, may_be_duplicated};
use crate::opt::ranges::mask;
use crate::proc::consteval;

mod affine;
mod copy_source;
mod loop_end;
mod loop_guard;
mod merge;

pub use copy_source::copy_source_ends;
pub use loop_end::indices_below_loop_end;

pub use crate::ir::guard::LoopBound;

/// The most elements a `for` loop of a run may have (its body is walked once per
/// element when the guard is planned).
pub const MAX_TRIPS: u64 = 64;
/// The most run-time comparisons one guard may make (beyond it the run stays checked).
const MAX_GUARD_CHECKS: usize = 512;

pub use crate::ir::guard::{GuardOp, Length};

/// A run's guard: its steps, and the index expressions whose checks it decides.
#[derive(Debug, Default)]
pub struct Plan {
    pub ops: Vec<GuardOp>,
    pub decided: HashSet<Handle<Expr>>,
    /// Run-time comparisons in `ops` plus checks decided at compile time.
    pub checks: usize,
    /// A loop's guard must give every thread of the block the same copy (see
    /// [`loop_guard`]).
    pub block_uniform: bool,
}

/// A literal `for` loop being walked: its variable, its elements, the one walked now.
struct LiteralLoop {
    var: Handle<Local>,
    elems: Vec<u64>,
    current: usize,
}

/// An index and the values of the loop variables it depends on: one comparison each.
type CheckKey = (Handle<Expr>, Vec<(Handle<Local>, u64)>);

/// What the analysis knows of a local defined in the run (or a loop variable).
#[derive(Clone, Debug, Default)]
struct Known {
    /// Its value, when a compile-time constant (bits of its type).
    constant: Option<u64>,
    /// The loop variables its value depends on.
    deps: BTreeSet<Handle<Local>>,
}

pub struct Planner<'a> {
    func: &'a Function,
    module: &'a Module,
    /// Indices already proven in bounds where the run is written (no check to plan).
    proven: &'a HashSet<Handle<Expr>>,
    /// Value ranges: an index below a constant length for every value needs no check.
    ranges: &'a crate::opt::ranges::Ranges<'a>,
    /// Locals assigned so far in the run (or in the body of an enclosing literal loop).
    dirty: HashSet<Handle<Local>>,
    /// Locals that the run's `let`s or loops define.
    defined: HashSet<Handle<Local>>,
    /// Defined locals whose current value the guard has computed.
    known: BTreeMap<Handle<Local>, Known>,
    /// (index, the loop variables' values it depends on) already compared.
    seen: HashSet<CheckKey>,
    /// Indices met somewhere the guard cannot compute them.
    impure: HashSet<Handle<Expr>>,
    /// Run-time comparisons planned.
    compares: usize,
    plan: Plan,
    /// The initialisers of the `let`s the guard pre-executes (for the affine analysis).
    let_inits: HashMap<Handle<Local>, Handle<Expr>>,
    /// The literal loops being walked, outermost first.
    loops: Vec<LiteralLoop>,
    /// Strided checks planned: (index, the other loop variables' values, phase).
    strided: HashMap<(CheckKey, bool), usize>,
    /// The guard would be too large, or an index is out of range at compile time.
    abandoned: bool,
    /// Planning a run-time loop's guard (see [`loop_guard`]), not a run's.
    across: Option<loop_guard::Across>,
    /// Each `cp_async` call's last source element (see [`copy_source_ends`]).
    copy_ends: Option<&'a HashMap<Handle<Expr>, Handle<Expr>>>,
    /// (source index, last element) of each copy planned (both must be decided).
    copy_sources: Vec<(Handle<Expr>, Handle<Expr>)>,
    /// Checks whose indices differ by constants (see [`merge`]).
    merger: merge::Merger,
}

impl<'a> Planner<'a> {
    pub fn new(
        func: &'a Function,
        module: &'a Module,
        proven: &'a HashSet<Handle<Expr>>,
        ranges: &'a crate::opt::ranges::Ranges<'a>,
    ) -> Self {
        Planner {
            func,
            module,
            proven,
            ranges,
            dirty: HashSet::new(),
            defined: HashSet::new(),
            known: BTreeMap::new(),
            seen: HashSet::new(),
            impure: HashSet::new(),
            compares: 0,
            plan: Plan::default(),
            let_inits: HashMap::new(),
            loops: Vec::new(),
            strided: HashMap::new(),
            abandoned: false,
            across: None,
            copy_ends: None,
            copy_sources: Vec::new(),
            merger: merge::Merger::default(),
        }
    }

    /// Lets a guard plan the range checks of `cp_async` sources (a loop's guard) and of
    /// vector loads and stores (any guard), whose last elements are `ends` (see
    /// [`copy_source_ends`]).
    pub fn with_copy_ends(mut self, ends: &'a HashMap<Handle<Expr>, Handle<Expr>>) -> Self {
        self.copy_ends = Some(ends);
        self
    }

    /// The plan for `stmts` (all simple), or `None` when no guard is worth it.
    pub fn plan(mut self, stmts: &[Stmt]) -> Option<Plan> {
        for stmt in stmts {
            self.stmt(stmt);
            if self.abandoned {
                return None;
            }
        }
        self.keep_whole_copies();
        self.drop_merged();
        if self.plan.decided.iter().any(|h| self.impure.contains(h)) {
            return None;
        }
        // One check decided by one comparison gains nothing over the check itself.
        (self.plan.checks >= 2).then_some(self.plan)
    }

    /// The expression `h`; a dangling handle (malformed IR, which the writer reports)
    /// reads as `!`, which no run contains.
    fn expr(&self, h: Handle<Expr>) -> &'a Expr {
        static NEVER: Expr = Expr {
            kind: ExprKind::Literal(Literal::Bool(false)),
            ty: Type::Never,
        };
        self.func.exprs.get(h).unwrap_or(&NEVER)
    }

    /// The type of local `l` (`!` when dangling).
    fn local_ty(&self, l: Handle<Local>) -> &'a Type {
        self.func
            .locals
            .get(l)
            .map_or(&Type::Never, |local| &local.ty)
    }

    // ---- simple statements ------------------------------------------------------------

    /// Whether `stmt` may be part of a run.
    pub fn is_simple(&self, stmt: &Stmt) -> bool {
        match stmt {
            Stmt::Let { local, init } => {
                self.func.locals.get(*local).is_some()
                    && init.is_none_or(|e| self.is_simple_expr(e))
            }
            Stmt::Assign { place, value, .. } => {
                self.is_simple_place(place) && self.is_simple_expr(*value)
            }
            Stmt::Expr(e) => self.is_simple_expr(*e),
            Stmt::While { .. } | Stmt::Versioned(_) | Stmt::PredicatedPrefetch(_) => false,
            // print: an effect the guard must not run ahead of the code
            Stmt::Print(_) => false,
            Stmt::ForRange { .. } => self.literal_loop(stmt).is_some(),
        }
    }

    /// The elements of a `for` loop over a literal range with a simple body that does not
    /// assign its variable, when it has at most [`MAX_TRIPS`] of them.
    fn literal_loop(&self, stmt: &Stmt) -> Option<Vec<u64>> {
        let Stmt::ForRange { body, .. } = stmt else {
            return None;
        };
        if body.tail.is_some() || !body.stmts.iter().all(|st| self.is_simple(st)) {
            return None;
        }
        self.literal_elems(stmt)
    }

    /// The elements of a `for` loop over a literal range that does not assign its
    /// variable, when it has at most [`MAX_TRIPS`] of them.
    fn literal_elems(&self, stmt: &Stmt) -> Option<Vec<u64>> {
        let Stmt::ForRange {
            var,
            start,
            end,
            inclusive,
            step,
            reverse,
            body,
            ..
        } = stmt
        else {
            return None;
        };
        let s = self.local_ty(*var).scalar()?;
        let start = self.constant_int(*start, s)?;
        let end = self.constant_int(*end, s)?;
        let step = match step {
            Some(h) => self.literal_int(*h, ScalarType::Usize)?,
            None => 1,
        };
        if step <= 0 {
            return None;
        }
        let mut assigned = HashSet::new();
        assigned_in_block(self.func, body, &mut assigned);
        if assigned.contains(var) {
            return None;
        }
        let elements = RangeElements::new(start, end, *inclusive, step as u64, *reverse);
        let elems = elements.list(MAX_TRIPS)?;
        Some(elems.into_iter().map(|v| v as u64 & mask(s)).collect())
    }

    /// An integer literal's value as a mathematical integer of type `s`.
    /// A literal, or, inside a loop's guard, an unsigned expression whose value ranges
    /// pin to one value (`0..128 / rows_per_pass` with `let rows_per_pass = 128 / 4`,
    /// the copies of a tensor-core k-step). Runs keep to literals: walking more loops
    /// there would version runs that are written once now.
    fn constant_int(&self, h: Handle<Expr>, s: ScalarType) -> Option<i128> {
        if let Some(c) = self.literal_int(h, s) {
            return Some(c);
        }
        if self.across.is_none() || s.is_signed_integer() || !s.is_integer() {
            return None;
        }
        let interval = self.ranges.interval(h)?;
        (interval.min == interval.max).then_some(i128::from(interval.max))
    }

    fn literal_int(&self, h: Handle<Expr>, s: ScalarType) -> Option<i128> {
        let ExprKind::Literal(Literal::Int(bits)) = self.expr(h).kind else {
            return None;
        };
        if !s.is_integer() {
            return None;
        }
        Some(consteval::int_value(s, consteval::truncate(s, bits)))
    }

    fn is_simple_place(&self, place: &Place) -> bool {
        let root = match place.root {
            PlaceRoot::Pointee(h) => self.is_simple_expr(h),
            _ => true,
        };
        root && place.projections.iter().all(|p| match p {
            Projection::Index(h) => self.is_simple_expr(*h),
            Projection::Field(_) => true,
        })
    }

    fn is_simple_expr(&self, h: Handle<Expr>) -> bool {
        let e = self.expr(h);
        if e.ty == Type::Never {
            return false;
        }
        let all = |hs: &[Handle<Expr>]| hs.iter().all(|h| self.is_simple_expr(*h));
        match &e.kind {
            ExprKind::Literal(_) | ExprKind::Local(_) => true,
            ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => {
                self.is_simple_expr(*operand)
            }
            ExprKind::Binary { lhs, rhs, .. } => all(&[*lhs, *rhs]),
            ExprKind::Load(place) | ExprKind::AddressOf { place, .. } => {
                self.is_simple_place(place)
            }
            ExprKind::RefToSlice(x) | ExprKind::Len(x) | ExprKind::Field { base: x, .. } => {
                self.is_simple_expr(*x)
            }
            ExprKind::SubSlice {
                slice, start, end, ..
            } => {
                self.is_simple_expr(*slice)
                    && start.is_none_or(|s| self.is_simple_expr(s))
                    && end.is_none_or(|s| self.is_simple_expr(s))
            }
            ExprKind::SplitAt { slice, mid } => all(&[*slice, *mid]),
            ExprKind::DynamicSharedTake { count, .. } => self.is_simple_expr(*count),
            ExprKind::Array(items) | ExprKind::Tuple(items) => all(items),
            ExprKind::Splat { value, .. } => self.is_simple_expr(*value),
            ExprKind::Intrinsic { intrinsic, args } => may_be_duplicated(*intrinsic) && all(args),
            ExprKind::Logical { .. }
            | ExprKind::Call { .. }
            | ExprKind::If { .. }
            | ExprKind::Loop { .. }
            | ExprKind::Break { .. }
            | ExprKind::Continue { .. }
            | ExprKind::Return(_)
            | ExprKind::Block(_) => false,
        }
    }

    // ---- the walk ---------------------------------------------------------------------

    /// Plans a statement of a run, or of a loop's body when planning its guard (see
    /// [`loop_guard`]): there any statement may come, literal loops of any body are
    /// walked, and the checks inside other loops stay where they are.
    fn stmt(&mut self, stmt: &Stmt) {
        if self.walked_too_far() {
            return;
        }
        let mut assigned = HashSet::new();
        assigned_in_stmt(self.func, stmt, &mut assigned);
        self.dirty.extend(assigned);
        let in_loop_guard = self.across.is_some();
        match stmt {
            Stmt::Let { local, init } => self.define(*local, *init),
            Stmt::Assign { place, value, .. } => {
                self.visit(*value);
                self.visit_place(place);
            }
            Stmt::Expr(e) => self.visit(*e),
            Stmt::ForRange { var, body, .. } => {
                let elems = if in_loop_guard {
                    self.literal_elems(stmt)
                } else {
                    self.literal_loop(stmt)
                };
                let Some(elems) = elems else {
                    self.abandoned |= !in_loop_guard;
                    return;
                };
                self.walk_literal_loop(*var, elems, body);
            }
            Stmt::While { .. }
            | Stmt::Versioned(_)
            | Stmt::PredicatedPrefetch(_)
            // print
            | Stmt::Print(_) => self.abandoned |= !in_loop_guard,
        }
    }

    /// A `let`: its initialiser's checks, then its value pre-executed by the guard when
    /// the guard can compute it.
    fn define(&mut self, local: Handle<Local>, init: Option<Handle<Expr>>) {
        if let Some(init) = init {
            self.visit(init);
        }
        self.defined.insert(local);
        self.known.remove(&local);
        let scalar = self.local_ty(local).scalar().is_some();
        if let (Some(init), true, false) = (init, scalar, self.dirty.contains(&local)) {
            if let Some(k) = self.pure(init) {
                self.plan.ops.push(GuardOp::PreLet { local, init });
                self.known.insert(local, k);
                self.let_inits.insert(local, init);
            }
        }
    }

    /// A literal loop's body walked once per element, its variable set to it.
    fn walk_literal_loop(&mut self, var: Handle<Local>, elems: Vec<u64>, body: &Block) {
        self.defined.insert(var);
        self.loops.push(LiteralLoop {
            var,
            elems: elems.clone(),
            current: 0,
        });
        for (current, bits) in elems.into_iter().enumerate() {
            if let Some(l) = self.loops.last_mut() {
                l.current = current;
            }
            self.plan.ops.push(GuardOp::SetVar { local: var, bits });
            self.known.insert(
                var,
                Known {
                    constant: Some(bits),
                    deps: BTreeSet::from([var]),
                },
            );
            for st in &body.stmts {
                self.stmt(st);
                if self.abandoned {
                    return;
                }
            }
        }
        self.loops.pop();
        self.known.remove(&var);
    }

    /// Plans the checks of every place read or written inside `h`.
    fn visit(&mut self, h: Handle<Expr>) {
        let e = self.expr(h);
        match &e.kind {
            ExprKind::Load(place) | ExprKind::AddressOf { place, .. } => self.visit_place(place),
            // Only a loop's guard meets these (a run has no control flow).
            ExprKind::If { .. }
            | ExprKind::Block(_)
            | ExprKind::Loop { .. }
            | ExprKind::Break { .. }
            | ExprKind::Return(_) => self.visit_control(h),
            ExprKind::Intrinsic {
                intrinsic: Intrinsic::CpAsync { .. },
                args,
            } if self.across.is_some() => {
                args.iter().for_each(|a| self.visit(*a));
                self.plan_copy_source(h, args);
            }
            ExprKind::Intrinsic {
                intrinsic: Intrinsic::LoadVec { .. } | Intrinsic::StoreVec { .. },
                args,
            } => {
                args.iter().for_each(|a| self.visit(*a));
                self.plan_vector_range(h, args);
            }
            _ => visit_children(&e.kind, |c| self.visit(c)),
        }
    }

    fn visit_place(&mut self, place: &Place) {
        let mut ty = match place.root {
            PlaceRoot::Local(l) => self.local_ty(l).clone(),
            PlaceRoot::Global(g) => match self.module.globals.get(g) {
                Some(global) => global.ty.clone(),
                None => return,
            },
            PlaceRoot::Pointee(h) => {
                self.visit(h);
                match &self.expr(h).ty {
                    Type::Ref { pointee, .. } => (**pointee).clone(),
                    Type::Slice { .. } => {
                        let Some(Projection::Index(index)) = place.projections.first() else {
                            return;
                        };
                        self.visit(*index);
                        if self.pure(h).is_some() {
                            self.plan_check(*index, Length::OfSlice(h));
                        } else {
                            self.impure.insert(*index);
                        }
                        for p in &place.projections[1..] {
                            if let Projection::Index(i) = p {
                                self.visit(*i);
                            }
                        }
                        return;
                    }
                    _ => return,
                }
            }
        };
        for p in &place.projections {
            match p {
                Projection::Index(index) => {
                    self.visit(*index);
                    let Type::Array { elem, len } = ty else {
                        return;
                    };
                    self.plan_check(*index, Length::Const(len));
                    ty = *elem;
                }
                Projection::Field(i) => {
                    let Type::Tuple(fields) = ty else {
                        return;
                    };
                    let Some(f) = fields.get(*i as usize) else {
                        return;
                    };
                    ty = f.clone();
                }
            }
        }
    }

    /// Adds `index < len` to the guard if `index` is pure; decides it here if constant.
    fn plan_check(&mut self, index: Handle<Expr>, len: Length) {
        if self.proven.contains(&index) {
            return;
        }
        if let Length::Const(n) = len {
            if self.ranges.always_below(index, n) {
                self.plan.decided.insert(index);
                self.plan.checks += 1;
                return;
            }
        }
        let Some(k) = self.pure(index) else {
            self.impure.insert(index);
            return;
        };
        if let (Some(c), Length::Const(n)) = (k.constant, &len) {
            if c >= *n {
                // Out of range whatever happens: the run panics; keep it as written.
                self.abandoned = true;
                return;
            }
            self.plan.decided.insert(index);
            self.plan.checks += 1;
            return;
        }
        if self.across_var().is_some_and(|v| k.deps.contains(&v)) {
            self.plan_across(index, len, &k.deps);
            return;
        }
        let key: Vec<_> = k
            .deps
            .iter()
            .map(|v| (*v, self.known[v].constant.unwrap_or(0)))
            .collect();
        self.plan.decided.insert(index);
        self.plan.checks += 1;
        if self.plan_strided(index, &len, &k.deps) {
            return;
        }
        if self.seen.insert((index, key)) {
            self.plan.ops.push(GuardOp::Check {
                index,
                len: len.clone(),
            });
            self.compares += 1;
            self.merge_check(self.plan.ops.len() - 1, index, &len);
            if self.compares > MAX_GUARD_CHECKS {
                self.abandoned = true;
            }
        }
    }

    /// What is known of `h` if the guard can compute it without reading memory,
    /// panicking or reading a local the run changes before this point.
    fn pure(&self, h: Handle<Expr>) -> Option<Known> {
        let e = self.expr(h);
        let s = e.ty.scalar();
        let merge = |a: Known, b: Known| Known {
            constant: None,
            deps: a.deps.union(&b.deps).copied().collect(),
        };
        match &e.kind {
            ExprKind::Literal(Literal::Int(bits)) => {
                let s = s.filter(|s| s.is_integer())?;
                Some(Known {
                    constant: Some(bits & mask(s)),
                    deps: BTreeSet::new(),
                })
            }
            ExprKind::Literal(_) => Some(Known::default()),
            ExprKind::Local(l) => {
                if self.dirty.contains(l) {
                    None
                } else if self.defined.contains(l) {
                    self.known.get(l).cloned()
                } else {
                    Some(Known::default())
                }
            }
            ExprKind::Unary { op, operand } => {
                let k = self.pure(*operand)?;
                let s = s?;
                let constant = match (op, k.constant, s.is_integer()) {
                    (UnaryOp::Neg, Some(c), true) => Some(c.wrapping_neg() & mask(s)),
                    (UnaryOp::Not, Some(c), true) => Some(!c & mask(s)),
                    _ => None,
                };
                Some(Known { constant, ..k })
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.pure(*lhs)?, self.pure(*rhs)?);
                let ls = self.expr(*lhs).ty.scalar()?;
                if matches!(op, BinaryOp::Div | BinaryOp::Rem) {
                    // Only a literal divisor that cannot panic (`m / 4`, `m % 4`).
                    let d = self.literal_int(*rhs, ls)?;
                    if d == 0 || (d == -1 && ls.is_signed_integer()) {
                        return None;
                    }
                }
                let constant = match (l.constant, r.constant) {
                    (Some(a), Some(b)) if ls.is_integer() && !ls.is_signed_integer() => {
                        fold(*op, ls, a, b)
                    }
                    _ => None,
                };
                Some(Known {
                    constant,
                    ..merge(l, r)
                })
            }
            ExprKind::Cast { operand, to } => {
                let k = self.pure(*operand)?;
                let from = self.expr(*operand).ty.scalar()?;
                let unsigned = |t: ScalarType| t.is_integer() && !t.is_signed_integer();
                let constant = match k.constant {
                    Some(c) if unsigned(from) && unsigned(*to) => Some(c & mask(*to)),
                    _ => None,
                };
                Some(Known { constant, ..k })
            }
            ExprKind::Len(x) | ExprKind::Field { base: x, .. } => {
                let k = self.pure(*x)?;
                Some(Known {
                    constant: None,
                    ..k
                })
            }
            ExprKind::Intrinsic { intrinsic, args } if args.is_empty() => {
                is_thread_constant(*intrinsic).then(Known::default)
            }
            _ => None,
        }
    }
}

/// `a op b` for unsigned integers of type `s`, where it cannot panic.
fn fold(op: BinaryOp, s: ScalarType, a: u64, b: u64) -> Option<u64> {
    let bits = s.bits() as u64;
    let v = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div if b != 0 => a / b,
        BinaryOp::Rem if b != 0 => a % b,
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::Shl => a << (b % bits),
        BinaryOp::Shr => a >> (b % bits),
        _ => return None,
    };
    Some(v & mask(s))
}
