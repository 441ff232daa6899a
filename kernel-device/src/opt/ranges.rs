//! Value ranges of unsigned integer expressions, for bounds checks that can never fail:
//! `t[ty + r + 1][tx + 1]` on a `[[f32; 34]; 34]` tile, with `tx < 32`, `ty < 8` (the
//! kernel's `block_dim`) and `r` a loop variable of `(0..32).step_by(8)`, is in bounds
//! for every thread, so the writer emits no check for it. libnvvm's LLVM 7 does not
//! prove these itself (it keeps `tx + 1 < 34` even with `tid.x`'s `!range`).
//!
//! The analysis is flow-insensitive and sound for every execution: a local has a range
//! only if its one `let` is its only definition (then every value it ever holds is a
//! value of that initialiser), a `for` variable the range of its bounds; everything
//! else, and any operation that could wrap, is unknown. Only unsigned integers are
//! tracked; a signed value, a float or a memory read is unknown. One condition narrows
//! a range: inside `if x > c { .. }` (`x >= c`, `x != 0`, `c < x`), and in the `else`
//! of `if x == 0` (`x < c`), `x` a local whose one definition is its `let` (or a `for`
//! variable), every read of `x` is above `c` (at least 1), so `warp_sums[warp - 1]`
//! under `if warp > 0` cannot wrap ([`super::range_context`]). `thread_idx()` is below
//! the kernels' `launch_bounds` as well as their `block_dim`.

use std::cell::RefCell;
use std::collections::HashMap;

use super::launch_proof::Bound;
use super::range_context::{lower_bound, lower_bound_when_false, BlockFacts};
use crate::ir::visit::exprs_in_block;
use crate::ir::{
    Axis, BinaryOp, Block, Expr, ExprKind, Function, FunctionKind, Handle, Intrinsic, Literal,
    Local, Module, PlaceRoot, ScalarType, Stmt,
};

/// `[min, max]` of an unsigned value, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub min: u64,
    pub max: u64,
}

/// How a local gets its values.
#[derive(Clone, Copy)]
enum Definition {
    /// One `let` with this initialiser and no other assignment.
    Let(Handle<Expr>),
    /// The variable of `for var in start..end` (`..=end` when `inclusive`), never
    /// assigned in the body.
    For {
        start: Handle<Expr>,
        end: Handle<Expr>,
        inclusive: bool,
        step: Option<Handle<Expr>>,
    },
    /// A mutable local whose `let` is this literal and that nothing has assigned yet.
    CounterStart(u64),
    /// A counter ([`wrapping_step`]): `let mut x = a;` and only `x = if x == last { b }
    /// else { x + 1 };` with `a, b <= last`, never borrowed mutably: `0..=last`.
    Counter { last: u64 },
    /// Anything else: a parameter, `let x;`, an assigned or reassigned local.
    Unknown,
}

/// What the analysis knows of one function, computed once ([`RangeFacts::new`]) and
/// kept beside the module; read through a [`Ranges`] view.
#[derive(Clone)]
pub struct RangeFacts {
    /// What every launch guarantees of the block: its shape (`#[kernel(block_dim =
    /// ..)]`) and its size (`launch_bounds`), where the unit's kernels give them.
    block: BlockFacts,
    definitions: HashMap<Handle<Local>, Definition>,
    /// Reads of a local (`ExprKind::Local` handles) inside an `if` whose condition
    /// bounds it from below: the least value it has there.
    floors: HashMap<Handle<Expr>, u64>,
    memo: RefCell<HashMap<Handle<Expr>, Option<Interval>>>,
    /// The expressions the optimiser copied (see `crate::ir::copy`), with their
    /// originals: a copy has its original's range.
    copies: RefCell<HashMap<Handle<Expr>, Handle<Expr>>>,
}

/// The value ranges of one function's expressions: its [`RangeFacts`] with the function
/// they describe (a copyable view).
#[derive(Clone, Copy)]
pub struct Ranges<'a> {
    func: &'a Function,
    facts: &'a RangeFacts,
}

impl RangeFacts {
    /// `block_dim`: the block every kernel of the module is launched with, if they agree
    /// (then also what every device function of the module runs under).
    pub fn new(func: &Function, block_dim: Option<[u32; 3]>) -> Self {
        let block = BlockFacts {
            dims: block_dim,
            max_threads: None,
        };
        Self::for_block(func, block)
    }

    /// The facts of `func` in a module whose launches guarantee `block`.
    pub fn for_block(func: &Function, block: BlockFacts) -> Self {
        let mut definitions = HashMap::new();
        for param in &func.params {
            definitions.insert(param.local, Definition::Unknown);
        }
        let mut walker = DefinitionWalker {
            func,
            definitions: &mut definitions,
        };
        walker.block(&func.body);
        let mut floors = HashMap::new();
        for (_, expr) in func.exprs.iter() {
            match &expr.kind {
                ExprKind::If {
                    cond,
                    then_block,
                    else_block,
                } => {
                    let mut narrow = |block: &Block, (local, floor): (Handle<Local>, u64)| {
                        exprs_in_block(func, block, &mut |h, e| {
                            if matches!(e.kind, ExprKind::Local(l) if l == local) {
                                let f = floors.entry(h).or_insert(floor);
                                *f = (*f).max(floor);
                            }
                        });
                    };
                    if let Some(bound) = lower_bound(func, *cond) {
                        narrow(then_block, bound);
                    }
                    if let (Some(b), Some(bound)) =
                        (else_block, lower_bound_when_false(func, *cond))
                    {
                        narrow(b, bound);
                    }
                    walker.block(then_block);
                    if let Some(b) = else_block {
                        walker.block(b);
                    }
                }
                ExprKind::Loop { body, .. } | ExprKind::Block(body) => walker.block(body),
                _ => {}
            }
        }
        // A counter lent out mutably may take any value.
        for (_, expr) in func.exprs.iter() {
            if let ExprKind::AddressOf {
                place,
                mutable: true,
            } = &expr.kind
            {
                if let PlaceRoot::Local(l) = place.root {
                    definitions.insert(l, Definition::Unknown);
                }
            }
        }
        RangeFacts {
            block,
            definitions,
            floors,
            memo: RefCell::new(HashMap::new()),
            copies: RefCell::new(HashMap::new()),
        }
    }

    /// Records that `copy` is a copy of `original` (itself possibly a copy).
    pub fn record_copy(&self, copy: Handle<Expr>, original: Handle<Expr>) {
        let root = self.original(original);
        self.copies.borrow_mut().insert(copy, root);
    }

    /// The expression `h` is a copy of, or `h`.
    fn original(&self, h: Handle<Expr>) -> Handle<Expr> {
        self.copies.borrow().get(&h).copied().unwrap_or(h)
    }

    /// These facts read with `func`, the function they were computed from.
    pub fn of<'a>(&'a self, func: &'a Function) -> Ranges<'a> {
        Ranges { func, facts: self }
    }
}

impl<'a> Ranges<'a> {
    /// Whether `index` is below `len` for every value it can take.
    pub fn always_below(&self, index: Handle<Expr>, len: u64) -> bool {
        self.interval(index).is_some_and(|i| i.max < len)
    }

    /// The range of `h`, if it is an unsigned integer the analysis can bound.
    pub fn interval(&self, h: Handle<Expr>) -> Option<Interval> {
        let h = self.facts.original(h);
        if let Some(known) = self.facts.memo.borrow().get(&h) {
            return *known;
        }
        // Unknown while being computed: a cycle through locals proves nothing.
        self.facts.memo.borrow_mut().insert(h, None);
        let result = self.compute(h);
        self.facts.memo.borrow_mut().insert(h, result);
        result
    }

    fn compute(&self, h: Handle<Expr>) -> Option<Interval> {
        let expr: &Expr = self.func.expr(h);
        let scalar = expr.ty.scalar().filter(|s| is_unsigned(*s))?;
        let top = mask(scalar);
        let exact = |min: u64, max: u64| (max <= top).then_some(Interval { min, max });
        match &expr.kind {
            ExprKind::Literal(Literal::Int(bits)) => {
                let v = *bits & top;
                exact(v, v)
            }
            ExprKind::Local(l) => {
                let i = self.local(*l, top)?;
                // A counter may have stepped since its condition was tested.
                let single_valued = matches!(
                    self.facts.definitions.get(l),
                    Some(Definition::Let(_) | Definition::For { .. })
                );
                match self.facts.floors.get(&h).filter(|_| single_valued) {
                    Some(&floor) if floor > i.max => None,
                    Some(&floor) => exact(i.min.max(floor), i.max),
                    None => Some(i),
                }
            }
            ExprKind::Cast { operand, .. } => {
                let from = self.func.expr(*operand).ty.scalar()?;
                if !is_unsigned(from) {
                    return None;
                }
                let i = self.interval(*operand)?;
                exact(i.min, i.max)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                // A shift amount is often a signed literal (`lane >> 4` is `>> 4i32`).
                let rhs_range = match op {
                    BinaryOp::Shr | BinaryOp::Shl => {
                        self.interval(*rhs).or_else(|| self.shift_literal(*rhs))
                    }
                    _ => self.interval(*rhs),
                };
                let (a, b) = match (self.interval(*lhs), rhs_range) {
                    (Some(a), Some(b)) => (a, b),
                    // One side bounds these whatever the other: `kt % 3` of a loop
                    // variable with an unknown end (a pipeline's stage), `x & 7`.
                    (_, Some(b)) if *op == BinaryOp::Rem && b.min > 0 => {
                        return exact(0, b.max - 1)
                    }
                    (Some(k), _) | (_, Some(k)) if *op == BinaryOp::BitAnd => {
                        return exact(0, k.max)
                    }
                    _ => return None,
                };
                match op {
                    // Computed in u64: a bound past the type's largest value is unknown
                    // (`exact`), and one past u64's too (the `?`s), never a panic.
                    BinaryOp::Add => exact(a.min.checked_add(b.min)?, a.max.checked_add(b.max)?),
                    BinaryOp::Sub if a.min >= b.max => exact(a.min - b.max, a.max - b.min),
                    BinaryOp::Mul => exact(a.min.checked_mul(b.min)?, a.max.checked_mul(b.max)?),
                    BinaryOp::Div if b.min > 0 => exact(a.min / b.max, a.max / b.min),
                    BinaryOp::Rem if b.min > 0 => exact(0, a.max.min(b.max - 1)),
                    BinaryOp::BitAnd => exact(0, a.max.min(b.max)),
                    BinaryOp::BitOr | BinaryOp::BitXor => {
                        let bits = 64 - a.max.max(b.max).leading_zeros();
                        exact(0, u64::MAX.checked_shr(64 - bits).unwrap_or(0))
                    }
                    // No bit shifted out: `exact` refuses a maximum past the type.
                    BinaryOp::Shl if b.max < u64::from(scalar.bits()) => exact(
                        a.min.checked_mul(1 << b.min)?,
                        a.max.checked_mul(1 << b.max)?,
                    ),
                    BinaryOp::Shr if b.max < u64::from(scalar.bits()) => {
                        exact(a.min >> b.max, a.max >> b.min)
                    }
                    _ => None,
                }
            }
            ExprKind::Intrinsic { intrinsic, .. } => self.special_register(*intrinsic),
            _ => None,
        }
    }

    /// A non-negative integer literal of any type, as a shift amount.
    fn shift_literal(&self, h: Handle<Expr>) -> Option<Interval> {
        let expr = self.func.expr(h);
        match (&expr.kind, expr.ty.scalar()) {
            (ExprKind::Literal(Literal::Int(bits)), Some(scalar)) => {
                let v = *bits & mask(scalar);
                let negative = !is_unsigned(scalar) && v >> (scalar.bits() - 1) != 0;
                (!negative).then_some(Interval { min: v, max: v })
            }
            _ => None,
        }
    }

    /// The initialiser of local `l` when its one `let` is its only definition.
    pub fn let_init(&self, l: Handle<Local>) -> Option<Handle<Expr>> {
        match self.facts.definitions.get(&l)? {
            Definition::Let(init) => Some(*init),
            _ => None,
        }
    }

    /// The end of the range local `l` is the variable of, when it is a `for` over an
    /// exclusive range (`for l in start..end`, stepped or reversed or not): every value
    /// `l` takes is below `end`.
    pub fn exclusive_loop_end(&self, l: Handle<Local>) -> Option<Handle<Expr>> {
        match self.facts.definitions.get(&l)? {
            Definition::For {
                end,
                inclusive: false,
                ..
            } => Some(*end),
            _ => None,
        }
    }

    /// The largest value `h` (an unsigned integer) takes in any launch, as a function of
    /// the launch's grid and block; `None` when it depends on anything else.
    pub fn launch_max(&self, h: Handle<Expr>) -> Option<Bound> {
        let known = self.interval(h);
        if let Some(k) = known.filter(|k| k.min == k.max) {
            return Some(Bound::Const(k.max));
        }
        // The launch's bound where there is one (`thread_idx().x` below the launch's
        // block), capped by what holds for every launch (below 1024).
        match (self.symbolic_max(h), known) {
            (Some(bound), Some(k)) => Some(Bound::Min(Box::new(bound), k.max)),
            (Some(bound), None) => Some(bound),
            (None, k) => k.map(|k| Bound::Const(k.max)),
        }
    }

    fn symbolic_max(&self, h: Handle<Expr>) -> Option<Bound> {
        let expr: &Expr = self.func.exprs.get(h)?;
        let scalar = expr.ty.scalar().filter(|s| is_unsigned(*s))?;
        let no_wrap = |b: Bound| Bound::NoWrap(Box::new(b), mask(scalar));
        let constant = |h: Handle<Expr>| self.interval(h);
        match &expr.kind {
            ExprKind::Local(l) => match self.facts.definitions.get(l).copied()? {
                Definition::Let(init) => self.launch_max(init),
                Definition::For { end, inclusive, .. } => {
                    let end = self.launch_max(end)?;
                    Some(if inclusive {
                        end
                    } else {
                        Bound::Minus(Box::new(end), 1)
                    })
                }
                Definition::Counter { last } => Some(Bound::Const(last)),
                Definition::CounterStart(_) | Definition::Unknown => None,
            },
            ExprKind::Cast { operand, .. } => {
                let from = self.func.exprs.get(*operand)?.ty.scalar()?;
                is_unsigned(from).then_some(())?;
                Some(no_wrap(self.launch_max(*operand)?))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let max = |h: Handle<Expr>| self.launch_max(h).map(Box::new);
                match op {
                    BinaryOp::Add => Some(no_wrap(Bound::Sum(max(*lhs)?, max(*rhs)?))),
                    BinaryOp::Mul => Some(no_wrap(Bound::Product(max(*lhs)?, max(*rhs)?))),
                    BinaryOp::Div => {
                        let d = constant(*rhs).filter(|d| d.min > 0)?;
                        Some(Bound::Quotient(max(*lhs)?, d.min))
                    }
                    BinaryOp::Rem => {
                        let d = constant(*rhs).filter(|d| d.min > 0)?;
                        Some(Bound::Min(max(*lhs)?, d.max - 1))
                    }
                    BinaryOp::BitAnd => {
                        let (c, other) = match constant(*rhs) {
                            Some(c) => (c, *lhs),
                            None => (constant(*lhs)?, *rhs),
                        };
                        Some(Bound::Min(max(other)?, c.max))
                    }
                    BinaryOp::Shr => {
                        let s = constant(*rhs).filter(|s| s.max < u64::from(scalar.bits()))?;
                        Some(Bound::ShiftRight(max(*lhs)?, s.min as u32))
                    }
                    _ => None,
                }
            }
            ExprKind::Intrinsic { intrinsic, .. } => {
                let minus_one = |b: Bound| Bound::Minus(Box::new(b), 1);
                let dims = |a: Axis| {
                    Bound::Product(Box::new(Bound::GridDim(a)), Box::new(Bound::BlockDim(a)))
                };
                Some(match *intrinsic {
                    Intrinsic::ThreadIdx(a) => minus_one(Bound::BlockDim(a)),
                    Intrinsic::BlockIdx(a) => minus_one(Bound::GridDim(a)),
                    Intrinsic::BlockDim(a) => Bound::BlockDim(a),
                    Intrinsic::GridDim(a) => Bound::GridDim(a),
                    Intrinsic::Grid(a) => minus_one(dims(a)),
                    Intrinsic::GridSize(a) => dims(a),
                    _ => return None,
                })
            }
            _ => None,
        }
    }

    /// The range of every value local `l` (of a type whose largest value is `top`) holds.
    fn local(&self, l: Handle<Local>, top: u64) -> Option<Interval> {
        let exact = |min: u64, max: u64| (max <= top).then_some(Interval { min, max });
        match self.facts.definitions.get(&l).copied()? {
            Definition::Let(init) => self.interval(init),
            Definition::For {
                start,
                end,
                inclusive,
                step,
            } => {
                let (s, e) = (self.interval(start)?, self.interval(end)?);
                let mut max = if inclusive {
                    e.max
                } else {
                    e.max.checked_sub(1)?
                };
                // `(0..32).step_by(8)` from a known start: the last element, 24.
                let step = step.and_then(|h| self.interval(h));
                if let Some(step) = step.filter(|st| st.min == st.max && st.min > 0) {
                    let elements = crate::ir::range::RangeElements::new(
                        s.min.into(),
                        e.max.into(),
                        inclusive,
                        step.min,
                        false,
                    );
                    if let (true, Some(last)) = (s.min == s.max, elements.last()) {
                        max = last as u64;
                    }
                }
                exact(s.min, max.max(s.min))
            }
            Definition::Counter { last } => exact(0, last),
            Definition::CounterStart(_) | Definition::Unknown => None,
        }
    }

    /// What CUDA guarantees of a special register (and the kernels' `block_dim` and
    /// `launch_bounds`), from the one table of those bounds ([`sreg_bounds`]).
    fn special_register(&self, intrinsic: Intrinsic) -> Option<Interval> {
        let reg = match intrinsic {
            Intrinsic::ThreadIdx(a) => format!("tid.{}", axis_name(a)),
            Intrinsic::BlockDim(a) => format!("ntid.{}", axis_name(a)),
            Intrinsic::LaneId => "laneid".to_string(),
            Intrinsic::WarpSize => "warpsize".to_string(),
            _ => return None,
        };
        let (low, high) = self.facts.block.sreg_bounds(&reg)?;
        (0 <= low && low < high).then(|| Interval {
            min: low as u64,
            max: (high - 1) as u64,
        })
    }
}

struct DefinitionWalker<'w> {
    func: &'w Function,
    definitions: &'w mut HashMap<Handle<Local>, Definition>,
}

impl DefinitionWalker<'_> {
    fn define(&mut self, local: Handle<Local>, definition: Definition) {
        let merged = match self.definitions.get(&local) {
            None => definition,
            Some(_) => Definition::Unknown,
        };
        self.definitions.insert(local, merged);
    }

    fn block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { local, init } => {
                    let literal = init.and_then(|h| match self.func.expr(h).kind {
                        ExprKind::Literal(Literal::Int(v)) => Some(v),
                        _ => None,
                    });
                    let definition = match (init, literal) {
                        (Some(init), _) if !self.func.locals[*local].mutable => {
                            Definition::Let(*init)
                        }
                        (_, Some(v)) => Definition::CounterStart(v),
                        _ => Definition::Unknown,
                    };
                    self.define(*local, definition);
                }
                Stmt::Assign { place, op, value } => {
                    if let PlaceRoot::Local(l) = place.root {
                        let step = match op {
                            None if place.projections.is_empty() => {
                                wrapping_step(self.func, l, *value)
                            }
                            _ => None,
                        };
                        let definition = match (self.definitions.get(&l), step) {
                            (Some(Definition::CounterStart(a)), Some((last, b)))
                                if *a <= last && b <= last =>
                            {
                                Definition::Counter { last }
                            }
                            (Some(Definition::Counter { last: known }), Some((last, b)))
                                if *known == last && b <= last =>
                            {
                                Definition::Counter { last }
                            }
                            _ => Definition::Unknown,
                        };
                        self.definitions.insert(l, definition);
                    }
                }
                Stmt::Expr(_) | Stmt::Print(_) => {}
                Stmt::While { body, .. } => self.block(body),
                // Its copies define the same locals alike: one of them tells.
                Stmt::Versioned(v) => self.block(&v.checked),
                Stmt::PredicatedPrefetch(body) => self.block(body),
                Stmt::ForRange {
                    var,
                    start,
                    end,
                    inclusive,
                    step,
                    reverse,
                    body,
                    ..
                } => {
                    // Every element lies in the range; reversed and stepped they are
                    // not the forward steps from `start`, so only the range counts.
                    let definition = Definition::For {
                        start: *start,
                        end: *end,
                        inclusive: *inclusive,
                        step: if *reverse { None } else { *step },
                    };
                    self.define(*var, definition);
                    self.block(body);
                }
            }
        }
    }
}

/// `(last, b)` when `value` is `if x == last { b } else { x + 1 }` (literals `last`, `b`):
/// one step of a counter that wraps from `last` to `b` (`opt::loop_remainders`'s).
fn wrapping_step(func: &Function, x: Handle<Local>, value: Handle<Expr>) -> Option<(u64, u64)> {
    let literal = |h: Handle<Expr>| match func.exprs.get(h)?.kind {
        ExprKind::Literal(Literal::Int(bits)) => Some(bits),
        _ => None,
    };
    let is_x = |h: Handle<Expr>| matches!(func.exprs.get(h).map(|e| &e.kind), Some(ExprKind::Local(l)) if *l == x);
    let tail = |b: &Block| b.stmts.is_empty().then_some(b.tail).flatten();
    let ExprKind::If {
        cond,
        then_block,
        else_block: Some(else_block),
    } = &func.exprs.get(value)?.kind
    else {
        return None;
    };
    let ExprKind::Binary {
        op: BinaryOp::Eq,
        lhs,
        rhs,
    } = func.exprs.get(*cond)?.kind
    else {
        return None;
    };
    let last = literal(rhs).filter(|_| is_x(lhs))?;
    let reset = literal(tail(then_block)?)?;
    let ExprKind::Binary {
        op: BinaryOp::Add,
        lhs,
        rhs,
    } = func.exprs.get(tail(else_block)?)?.kind
    else {
        return None;
    };
    (is_x(lhs) && literal(rhs) == Some(1)).then_some((last, reset))
}

fn is_unsigned(s: ScalarType) -> bool {
    s.is_integer() && !s.is_signed_integer()
}

/// What CUDA guarantees of a special register on every architecture cudajit targets
/// (blocks of at most 1024 threads and 64 on z, grids of at most 2^31 - 1 blocks on x
/// and 65535 on y and z, 32-lane warps), as `[low, high)` for `!range` metadata on its
/// read. With them LLVM proves checks such as `warp_sums[thread_idx().x / 32]` on a
/// 32-element array in bounds and drops them, as nvcc's code never had them.
/// `nctaid.x`'s bound, 2^31, is written as the wrapped i32 `-2147483648`.
pub const SREG_RANGES: [(&str, i64, i64); 14] = [
    ("tid.x", 0, 1024),
    ("tid.y", 0, 1024),
    ("tid.z", 0, 64),
    ("ntid.x", 1, 1025),
    ("ntid.y", 1, 1025),
    ("ntid.z", 1, 65),
    ("ctaid.x", 0, 2_147_483_647),
    ("ctaid.y", 0, 65_535),
    ("ctaid.z", 0, 65_535),
    ("nctaid.x", 1, -2_147_483_648),
    ("nctaid.y", 1, 65_536),
    ("nctaid.z", 1, 65_536),
    ("laneid", 0, 32),
    ("warpsize", 32, 33),
];

/// The block shape all kernels of `module` require, if there are kernels and they agree.
pub fn required_block(module: &Module) -> Option<[u32; 3]> {
    let mut blocks = module
        .functions
        .iter()
        .filter(|(_, f)| f.kind == FunctionKind::Kernel)
        .map(|(_, f)| f.options.launch_bounds.and_then(|b| b.block_dim));
    let first = blocks.next()??;
    blocks.all(|b| b == Some(first)).then_some(first)
}

/// The `[low, high)` of special register `reg` (`tid.x`): CUDA's bound, or in a module
/// compiled for one block (`block`), the block's own: `tid.x` below `block_dim.x`,
/// `ntid.x` exactly it. `None` for a register CUDA does not bound. The NVVM writer's
/// `!range` metadata and constants and the value-range analysis ([`Ranges`]) read it.
pub fn sreg_bounds(reg: &str, block: Option<[u32; 3]>) -> Option<(i64, i64)> {
    let &(_, low, high) = SREG_RANGES.iter().find(|(name, _, _)| *name == reg)?;
    let axis = match reg.rsplit('.').next() {
        Some("x") => 0,
        Some("y") => 1,
        Some("z") => 2,
        _ => return Some((low, high)),
    };
    Some(match (block, reg.split('.').next()) {
        (Some(b), Some("tid")) => (0, i64::from(b[axis])),
        (Some(b), Some("ntid")) => (i64::from(b[axis]), i64::from(b[axis]) + 1),
        _ => (low, high),
    })
}

/// All ones in the bits of `s`: the largest value of an unsigned integer of that type.
pub fn mask(s: ScalarType) -> u64 {
    crate::proc::consteval::truncate(s, u64::MAX)
}

fn axis_name(axis: Axis) -> &'static str {
    match axis {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}
