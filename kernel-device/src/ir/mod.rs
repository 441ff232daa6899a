//! The typed intermediate representation shared by every stage.
//!
//! `front` builds it (already fully typed: every expression carries a concrete
//! [`Type`], no inference variables survive), `valid` checks it, `back` writes it
//! out. It is a tree of blocks over an arena of expressions, in the style of naga:
//! expressions are referred to by [`Handle`]s, and each expression's source location
//! sits beside it in [`Function::expr_locs`] so the backend can name `file:line` for
//! device-side panics without the IR itself carrying syntax spans.

mod arena;
pub mod checks;
pub mod copy;
pub mod enums;
pub mod format;
pub mod guard;
pub mod layout;
pub mod mma;
pub mod print;
pub mod range;
mod types;
pub mod visit;

pub use arena::{Arena, Handle};
pub use enums::{EnumDef, EnumVariant};
pub use guard::{Guard, GuardOp, Length, LoopBound, VersionKind, Versioned};
pub use layout::{StructDef, StructField};
// print
pub use print::{PrintKind, PrintStmt};
pub use types::{map_type_name, AddressSpace, ScalarType, Type};

/// A location in the user's source file: 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SourceLoc {
    pub line: u32,
    pub column: u32,
}

/// One compilation unit: kernels plus every device function they reach, and the
/// module-level memory they use (shared arrays, constant tables).
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Arena<Function>,
    pub globals: Arena<Global>,
    /// The formats of the unit's print statements and panic messages
    /// ([`Stmt::Print`]): a record's format id indexes it. Every backend and the host
    /// read this one table.
    pub prints: crate::ir::format::FormatTable,
}

/// A module-level variable: one per `shared_array()` call site (per block at run
/// time), one per constant table a kernel reads. Places reach it through
/// [`PlaceRoot::Global`]; [`ExprKind::AddressOf`] makes a reference to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    /// Unique in the module; the backend derives the symbol from it.
    pub name: String,
    pub space: AddressSpace,
    /// The type of the memory: an array for everything the frontend makes.
    pub ty: Type,
    /// Constant memory's contents; `None` for shared memory (uninitialised).
    pub init: Option<ConstValue>,
    /// The byte alignment of the memory's first element: [`DEFAULT_GLOBAL_ALIGN`], or
    /// what `shared_array_aligned::<A, ALIGN>()` asked for (a swizzled TMA or wgmma
    /// tile needs its swizzle's repeat: 1024 bytes for 128-byte swizzle).
    pub align: u32,
    pub loc: SourceLoc,
}

/// The alignment every module global gets unless it asks for more: 16 bytes lets
/// NVVM vectorise accesses.
pub const DEFAULT_GLOBAL_ALIGN: u32 = 16;

/// A compile-time value: a crate `const`/`static` as rustc evaluated it, or a constant
/// table's contents.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Scalar {
        ty: ScalarType,
        value: Literal,
    },
    /// `elem` is the element type (kept for empty arrays).
    Array {
        elem: Type,
        items: Vec<ConstValue>,
    },
}

impl ConstValue {
    pub fn ty(&self) -> Type {
        match self {
            ConstValue::Scalar { ty, .. } => Type::Scalar(*ty),
            ConstValue::Array { elem, items } => Type::array(elem.clone(), items.len() as u64),
        }
    }

    /// The value as an unsigned integer (array lengths, loop bounds), if it is an
    /// integer scalar that is not negative.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            ConstValue::Scalar {
                ty,
                value: Literal::Int(bits),
            } if ty.is_integer() => {
                if ty.is_signed_integer() {
                    let shift = 64 - ty.bits();
                    let signed = ((*bits << shift) as i64) >> shift;
                    u64::try_from(signed).ok()
                } else {
                    Some(*bits)
                }
            }
            _ => None,
        }
    }
}

impl Module {
    pub fn kernels(&self) -> impl Iterator<Item = (Handle<Function>, &Function)> {
        self.functions
            .iter()
            .filter(|(_, f)| f.kind == FunctionKind::Kernel)
    }

    /// Whether some function of the unit synchronises the whole grid, so the kernel
    /// must be launched cooperatively (all blocks co-resident). A unit holds only the
    /// kernel and the device functions it reaches, so a `grid_sync()` anywhere in it is
    /// reachable from the kernel.
    pub fn needs_cooperative_launch(&self) -> bool {
        self.functions.iter().any(|(_, f)| {
            f.exprs.iter().any(|(_, e)| {
                matches!(
                    e.kind,
                    ExprKind::Intrinsic {
                        intrinsic: Intrinsic::GridSync,
                        ..
                    }
                )
            })
        })
    }

    pub fn function_by_name(&self, name: &str) -> Option<Handle<Function>> {
        self.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(h, _)| h)
    }

    /// The parameter types of the function named `name` (empty when there is none): the
    /// kernel signature the NVVM compile and the simulated launch both report.
    pub fn param_types(&self, name: &str) -> Vec<Type> {
        self.function_by_name(name)
            .map(|h| {
                self.functions[h]
                    .params
                    .iter()
                    .map(|p| p.ty.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `#[kernel]`: an entry point, returns unit, launched from the host.
    Kernel,
    /// `#[device]`: callable from kernels and other device functions.
    Device,
}

/// Per-function code generation switches taken from the attribute
/// (`#[kernel(boundscheck = false, fastmath = true)]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FunctionOptions {
    /// Emit bounds checks on slice indexing (Rust's default; Numba's `boundscheck`).
    pub bounds_check: bool,
    /// Allow approximate `f32` math (libdevice `__nv_fast_*`, flush-to-zero is a module option).
    pub fast_math: bool,
    /// `#[kernel(launch_bounds = ..)]`: CUDA's `__launch_bounds__`.
    pub launch_bounds: Option<LaunchBounds>,
    // print
    /// `debug_assert!` and friends are checked: `cfg!(debug_assertions)` of the crate
    /// that defines the function, as the macro's generated code evaluates it.
    pub debug_assertions: bool,
    /// `#[kernel(debug = true)]`: full device debug information (libnvvm's `-g`), for
    /// cuda-gdb. Line information alone is always on.
    pub debug_info: bool,
}

impl FunctionOptions {
    /// A kernel without arguments to its attribute: checked, exact math, no bounds. A
    /// constant so that the macro's generated statics can name it.
    pub const DEFAULT: FunctionOptions = FunctionOptions {
        bounds_check: true,
        fast_math: false,
        launch_bounds: None,
        debug_assertions: false,
        debug_info: false,
    };
}

impl Default for FunctionOptions {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// `#[kernel(launch_bounds = 256)]` or `(256, 2)`, as CUDA's `__launch_bounds__` and
/// numba-cuda's `launch_bounds`: the kernel is never launched with more than
/// `max_threads` threads per block (a launch with more is an `Err`), and the compiler
/// keeps registers low enough for `min_blocks` such blocks to share an SM.
///
/// `#[kernel(block_dim = (32, 8))]` is the stronger promise (PTX's `.reqntid`): every
/// launch has exactly that block (any other is an `Err`), so the module is compiled
/// with `block_dim()` a constant and `thread_idx()` bounded by it, as nvcc's code is
/// when the block size is a literal or a template parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchBounds {
    pub max_threads: u32,
    /// 0 when not given.
    pub min_blocks: u32,
    /// The one block shape the kernel is launched with (`max_threads` is its size).
    pub block_dim: Option<[u32; 3]>,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    pub options: FunctionOptions,
    /// The file the function was written in, as `file!()` gives it.
    pub file: String,
    pub loc: SourceLoc,
    /// Parameters in declaration order. Each is also a local (its `local` handle),
    /// initialised from the incoming argument at entry.
    pub params: Vec<Param>,
    /// Return type; `Type::Unit` for kernels and for device functions without `->`.
    pub ret: Type,
    pub locals: Arena<Local>,
    pub exprs: Arena<Expr>,
    /// Source location of each expression, indexed like `exprs`.
    pub expr_locs: Vec<SourceLoc>,
    pub body: Block,
    /// Index expressions the optimiser (`opt::elide`) proved in bounds: no backend
    /// checks them. Empty until the module is optimised.
    pub unchecked_indices: std::collections::HashSet<Handle<Expr>>,
    /// Loads that a predicated prefetch (`Stmt::PredicatedPrefetch`, built by
    /// `opt::version`) makes only where its `if`'s condition holds: each assigned
    /// `slice[index]` load, with that condition (evaluated once, by the `if`). Every
    /// backend may run such an assignment as written, since it is reached only inside
    /// the `if`; the NVVM writer issues the load under the condition (`@p ld`) instead
    /// of branching, and checks its index only where the condition holds.
    pub predicated_loads: std::collections::HashMap<Handle<Expr>, Handle<Expr>>,
}

impl Function {
    /// Adds an expression and records where it came from.
    pub fn add_expr(&mut self, expr: Expr, loc: SourceLoc) -> Handle<Expr> {
        let handle = self.exprs.append(expr);
        self.expr_locs.push(loc);
        handle
    }

    pub fn expr(&self, handle: Handle<Expr>) -> &Expr {
        &self.exprs[handle]
    }

    pub fn loc_of(&self, handle: Handle<Expr>) -> SourceLoc {
        self.expr_locs
            .get(handle.index())
            .copied()
            .unwrap_or_default()
    }
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    pub local: Handle<Local>,
}

/// A variable. Shadowing (`let x = ...; let x = ...;`) creates a new local each time.
#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: Type,
    pub mutable: bool,
    pub loc: SourceLoc,
}

/// A sequence of statements with an optional value-producing tail expression.
#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The block's value (`{ a; b }` → `b`). `None` means the block has type unit
    /// (or diverges, see [`Expr::ty`] of the enclosing expression).
    pub tail: Option<Handle<Expr>>,
}

/// Identifies a loop so `break`/`continue` (possibly labelled) can name their target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoopId(pub u32);

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let x = init;` (`init` is `None` for `let x;` assigned later).
    /// Tuple patterns are destructured by the frontend into several `Let`s.
    Let {
        local: Handle<Local>,
        init: Option<Handle<Expr>>,
    },
    /// `place = value` or, with `op`, `place op= value` (the place is evaluated once).
    Assign {
        place: Place,
        op: Option<BinaryOp>,
        value: Handle<Expr>,
    },
    /// An expression evaluated for its effects (`foo(x);`, `if c { .. }`, `break;`).
    Expr(Handle<Expr>),
    While {
        id: LoopId,
        cond: Handle<Expr>,
        body: Block,
    },
    /// `for var in start..end` / `start..=end`, optionally `.rev()` and/or
    /// `.step_by(step)` (in that order: `(a..b).rev().step_by(s)`); `var` is a fresh
    /// local of the range's integer type. `start`, `end` and `step` are evaluated once,
    /// in that order, before the first iteration, as in Rust; a zero `step` panics
    /// ("assertion failed: step != 0"). The sequence is std's: forward it is
    /// `start, start + step, ..` while within the range; reversed it is the last element
    /// of the range, then that minus `step`, ..; nothing ever overflows.
    ForRange {
        id: LoopId,
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        inclusive: bool,
        /// `.step_by(step)`: an expression of type usize, whatever the range's type.
        step: Option<Handle<Expr>>,
        /// `.rev()`: iterate from the range's last element down to `start`.
        reverse: bool,
        /// What the loop's `#[unroll]` attribute asks for (a hint: no effect on what
        /// the loop computes).
        unroll: Unroll,
        body: Block,
    },
    /// Bounds-check versioning, built by the optimiser (see [`guard`]): the guard's
    /// steps, then `fast` where it holds and `checked` where it does not.
    Versioned(Box<Versioned>),
    /// The whole body of an `if` without `else` whose statements only copy elements of
    /// immutable slice parameters into locals (see `opt::prefetch`): the NVVM writer
    /// predicates its loads instead of branching. It runs as the block does.
    PredicatedPrefetch(Block),
    // print
    /// `println!(..)` and friends, or a failed `assert!`/`panic!`'s message (see
    /// [`PrintStmt`]): an effect every backend must keep, in program order.
    Print(Box<PrintStmt>),
}

/// What a `for` loop's `#[unroll]` attribute asks of the compiler, as CUDA's
/// `#pragma unroll` does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unroll {
    /// No attribute: the compiler's own choice.
    #[default]
    Auto,
    /// `#[unroll]`: every iteration, when the trip count is known at compile time.
    Full,
    /// `#[unroll(n)]`: `n` iterations per trip (`#[unroll(1)]` keeps the loop rolled).
    Times(u32),
    /// Not unrolled at all: the optimiser's choice for a loop of a versioned statement's
    /// checked copy (see `opt::unroll`).
    Rolled,
}

/// A memory location: a root, then a chain of projections (`m[i][j]`, `t.0`,
/// `tile[ty][tx]` through a shared reference, `s[i]` through a slice). Reads are
/// [`ExprKind::Load`], writes [`Stmt::Assign`], references [`ExprKind::AddressOf`].
/// Evaluation order: the root's expression, then the indices left to right; each
/// index is bounds-checked (unless the function opted out) against the length of what
/// it indexes, with Rust's message, blamed on `loc`.
#[derive(Clone, Debug)]
pub struct Place {
    pub root: PlaceRoot,
    pub projections: Vec<Projection>,
    /// Where the place expression starts (what rustc blames an out-of-bounds index on).
    pub loc: SourceLoc,
}

impl Place {
    pub fn local(local: Handle<Local>, loc: SourceLoc) -> Place {
        Place {
            root: PlaceRoot::Local(local),
            projections: Vec::new(),
            loc,
        }
    }

    /// `slice[index]` for a slice-typed expression, blamed on `slice`'s location.
    pub fn slice_element(slice: Handle<Expr>, index: Handle<Expr>, loc: SourceLoc) -> Place {
        Place {
            root: PlaceRoot::Pointee(slice),
            projections: vec![Projection::Index(index)],
            loc,
        }
    }

    /// This place's tuple field `index`.
    pub fn field(mut self, index: u32) -> Place {
        self.projections.push(Projection::Field(index));
        self
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceRoot {
    /// A local's own storage (an array or tuple local, or a scalar).
    Local(Handle<Local>),
    /// A module global (shared array, constant table).
    Global(Handle<Global>),
    /// The memory a reference or slice value points at: the expression has type
    /// `Type::Ref` (then projections start from the pointee) or `Type::Slice` (then
    /// the first projection is an index into the slice, checked against its length).
    Pointee(Handle<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Projection {
    /// `[index]` into an array or slice; `index` has type usize.
    Index(Handle<Expr>),
    /// `.N` of a tuple.
    Field(u32),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    /// The expression's type. `Type::Never` for expressions that do not produce a
    /// value (`return`, `break`, `continue`, `loop` without `break`).
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    /// Integer literal, stored as the two's-complement bit pattern in 64 bits.
    Int(u64),
    Float(f64),
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Literal(Literal),
    /// Reads a local's current value.
    Local(Handle<Local>),
    Unary {
        op: UnaryOp,
        operand: Handle<Expr>,
    },
    /// Arithmetic, bitwise and comparison operators. Operand types follow Rust:
    /// both the same, except shifts where the right side is any integer.
    Binary {
        op: BinaryOp,
        lhs: Handle<Expr>,
        rhs: Handle<Expr>,
    },
    /// `&&` / `||`, evaluating `rhs` only when needed.
    Logical {
        op: LogicalOp,
        lhs: Handle<Expr>,
        rhs: Handle<Expr>,
    },
    /// `expr as T` between scalar types (float → int saturates, as in Rust).
    Cast {
        operand: Handle<Expr>,
        to: ScalarType,
    },
    /// Reads the value at a place (`a[i]`, `m[i][j]`, `s[i]`, a whole array `TAPS`).
    Load(Place),
    /// `&place` / `&mut place` of an array place: a `Type::Ref` into the place's space.
    AddressOf {
        place: Place,
        mutable: bool,
    },
    /// A reference to an array of scalars used as a slice (`&mut [T; N]` → `&mut [T]`,
    /// Rust's unsizing coercion): a generic pointer to the first element and `N`.
    RefToSlice(Handle<Expr>),
    /// `slice.len()` as usize (an array's length is a literal).
    Len(Handle<Expr>),
    /// `&slice[start..end]`, `&mut slice[start..]`, `&slice[..=end]`, `&slice[..]`: a view
    /// of part of `slice`, of type `Type::Slice` with the same element type (mutable only
    /// if `slice` is). `start`/`end` are usize expressions, evaluated in that order after
    /// `slice`. Bounds-checked (unless the function opted out) as
    /// [`checks::sub_slice_range`] decides.
    SubSlice {
        slice: Handle<Expr>,
        start: Option<Handle<Expr>>,
        end: Option<Handle<Expr>>,
        /// `..=end`.
        inclusive: bool,
    },
    /// `slice.split_at(mid)` / `slice.split_at_mut(mid)`: a `Type::Tuple` of two slices
    /// (`[..mid]`, `[mid..]`) of the result's mutability, checked as
    /// [`checks::split_at`] decides.
    SplitAt {
        slice: Handle<Expr>,
        mid: Handle<Expr>,
    },
    /// `cursor.take::<T>(count)`: carves `count` elements of `elem` from the launch's
    /// dynamic shared memory at the cursor (a local of type `Type::DynamicShared`,
    /// advanced past them), aligned to the element's size. Type `&mut [elem]`; panics as
    /// [`checks::dynamic_shared_take`] decides, whatever the function's bounds checks.
    DynamicSharedTake {
        cursor: Handle<Local>,
        elem: ScalarType,
        count: Handle<Expr>,
    },
    /// `[a, b, c]`: an array value.
    Array(Vec<Handle<Expr>>),
    /// `[value; len]`: `value` repeated (evaluated once, as Rust's `Copy` repeat).
    Splat {
        value: Handle<Expr>,
        len: u64,
    },
    /// `(a, b, ...)`.
    Tuple(Vec<Handle<Expr>>),
    /// `tuple.N`; also `thread_idx().x` style accesses on `Type::Tuple` values.
    Field {
        base: Handle<Expr>,
        index: u32,
    },
    /// Call of a device function in the same module.
    Call {
        function: Handle<Function>,
        args: Vec<Handle<Expr>>,
    },
    /// A built-in operation: special registers, math, barriers.
    Intrinsic {
        intrinsic: Intrinsic,
        args: Vec<Handle<Expr>>,
    },
    If {
        cond: Handle<Expr>,
        then_block: Block,
        else_block: Option<Block>,
    },
    /// `loop { .. }`; its value comes from `break value`, otherwise its type is
    /// unit (with a `break`) or never (without).
    Loop {
        id: LoopId,
        body: Block,
    },
    /// `break` / `break value` (value only out of a `loop`); type `Never`.
    Break {
        target: LoopId,
        value: Option<Handle<Expr>>,
    },
    /// `continue`; type `Never`.
    Continue {
        target: LoopId,
    },
    /// `return` / `return value`; type `Never`.
    Return(Option<Handle<Expr>>),
    Block(Block),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x` (wrapping for integers).
    Neg,
    /// `!x`: logical not on bool, bitwise not on integers.
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// Integer `+ - *` wrap (Rust release semantics).
    Add,
    Sub,
    Mul,
    /// Integer `/ %` panic on a zero divisor and on `MIN / -1`.
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    /// Shift amounts are masked to the bit width (Rust release semantics).
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogicalOp {
    And,
    Or,
}

/// Axis of a 3-component index intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    X,
    Y,
    Z,
}

/// Built-ins. Index registers are read as `u32` (CUDA's `unsigned int`);
/// `Grid`/`GridSize` give `usize` per axis, as Numba's `cuda.grid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    ThreadIdx(Axis),
    BlockIdx(Axis),
    BlockDim(Axis),
    GridDim(Axis),
    /// `thread_idx + block_idx * block_dim` on one axis, as usize.
    Grid(Axis),
    /// `block_dim * grid_dim` on one axis, as usize.
    GridSize(Axis),
    /// `sync_threads()`.
    SyncThreads,
    /// `grid_sync()`: a barrier for every thread of the grid (Numba's
    /// `cuda.cg.this_grid().sync()`). A kernel whose unit contains one must be launched
    /// cooperatively ([`Module::needs_cooperative_launch`]).
    GridSync,
    /// `dynamic_shared()`: a cursor (`Type::DynamicShared`) at the start of the launch's
    /// dynamic shared memory. Every call starts at byte 0, as CUDA's `extern __shared__`.
    DynamicShared,
    /// `sync_threads_count(pred)`: the barrier, then how many threads of the block
    /// passed `true` (u32).
    SyncThreadsCount,
    /// `sync_threads_and(pred)` / `sync_threads_or(pred)`: the barrier, then whether
    /// every / any thread of the block passed `true`.
    SyncThreadsAnd,
    SyncThreadsOr,
    /// `sync_warp(mask)`: a barrier for the lanes of the warp named in `mask`.
    SyncWarp,
    /// `threadfence_block()` / `threadfence()` / `threadfence_system()`.
    Fence(MemoryScope),
    /// `atomic_<op>[_block|_system](slice, index, operands..)`: reads `slice[index]`
    /// (bounds-checked), writes the combination, returns the old value; one indivisible
    /// step for every thread in `scope`. Operands: `[slice, index, value]`, or
    /// `[slice, index, expected, new]` for `Cas`.
    Atomic {
        op: AtomicOp,
        scope: MemoryScope,
    },
    /// `lane_id()`, `warp_size()`, `lanemask_lt()` (bits of the lanes below this one):
    /// u32 special registers.
    LaneId,
    WarpSize,
    LanemaskLt,
    /// `active_mask()`: the lanes of the warp executing this call (u32).
    ActiveMask,
    /// `shfl_*sync(mask, value, lane_or_delta)`: `value` as held by another lane.
    Shuffle(ShuffleMode),
    /// `all_sync` / `any_sync` / `eq_sync` (bool) and `ballot_sync` (u32) of
    /// `(mask, pred)`.
    Vote(VoteMode),
    /// `match_any_sync(mask, value)`: the lanes of `mask` holding the same value (u32).
    MatchAny,
    /// `match_all_sync(mask, value)`: `(mask, true)` if every lane of `mask` holds the
    /// same value, else `(0, false)`.
    MatchAll,
    /// `warp_reduce_<op>(value)`: the reduction over all 32 lanes, in every lane.
    WarpReduce(ReduceOp),
    // async copies
    /// `cp_async[_cg][_zfill]::<bytes>(dst, dst_index, src, src_index[, valid])`: starts
    /// copying `bytes` (4, 8, 16) from the global slice `src` at `src_index` to the
    /// shared slice `dst` at `dst_index`; with `zero_fill`, only `min(valid, lanes)`
    /// elements are read and the rest are zeros. Checked as
    /// [`crate::proc::async_copy::copy_check`] decides. The bytes land at the
    /// `CpAsyncWait*` that retires the copy's group. `l2_only` is PTX's `.cg`.
    CpAsync {
        bytes: u8,
        l2_only: bool,
        zero_fill: bool,
    },
    /// `cp_async_commit()`: the thread's uncommitted copies become one group.
    CpAsyncCommit,
    /// `cp_async_wait::<pending>()`: all but the `pending` newest groups have landed.
    CpAsyncWait {
        pending: u32,
    },
    /// `cp_async_wait_all()`: every copy of the thread has landed.
    CpAsyncWaitAll,
    /// `slice.load_vec::<lanes>(index)`: `[T; lanes]` read in one access (a
    /// `Type::Array` result); checked as [`crate::proc::async_copy::vector_check`] decides.
    LoadVec {
        lanes: u8,
    },
    /// `slice.store_vec::<lanes>(index, values)`: operands `[slice, index, array]`.
    StoreVec {
        lanes: u8,
    },
    // tensor cores
    /// `mma_<shape>_<input>_<acc>(a.., b.., c..)`: warp-collective `mma.sync` on the
    /// fragments' registers (`proc::mma`); a tuple of D's registers. All 32 lanes.
    Mma(mma::MmaCombo),
    /// `ldmatrix_x{count}[_trans](tile, offset)`: warp-collective `ldmatrix` of
    /// `count` 8x8 b16 matrices from shared memory; each lane names its row.
    Ldmatrix {
        count: u8,
        trans: bool,
    },
    /// `stmatrix_x{count}[_trans](tile, offset, registers..)` (compute_90+).
    Stmatrix {
        count: u8,
        trans: bool,
    },
    /// A math function on `f32`/`f64` (or integers where noted), lowered to
    /// libdevice or to LLVM instructions. Argument types equal the result type,
    /// except `Powi` whose exponent is i32.
    Math(MathFn),
    // Hopper
    /// `mbarrier_*(bars, index, ..)` on the `u64` at `bars[index]` in shared memory, and
    /// `fence_mbarrier_init()`: the rules are `proc::mbarrier`'s.
    Mbarrier(MbarrierOp),
    // Hopper: wgmma
    /// `wgmma_*`: warpgroup MMA on shared-memory descriptors and its fence / commit /
    /// wait protocol; the rules are `proc::wgmma`'s.
    Wgmma(WgmmaOp),
    // Hopper: TMA
    /// `tma_*`: bulk tensor copies through a `&TensorMap<T, N>` parameter and their
    /// bulk groups; the rules are `proc::tma_intrinsics`'.
    Tma(TmaOp),
    // Hopper: clusters
    /// Thread-block clusters and distributed shared memory (`cluster_*`, `peer_read`,
    /// `peer_write`): the rules are `proc::cluster`'s.
    Cluster(ClusterOp),
}

// Hopper: clusters
/// What an `Intrinsic::Cluster` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterOp {
    /// `cluster_block_rank()`: `%cluster_ctarank` (u32).
    BlockRank,
    /// `cluster_size()`: `%cluster_nctarank` (u32).
    Size,
    /// `cluster_block_idx().x`: `%cluster_ctaid` on one axis.
    BlockIdx(Axis),
    /// `cluster_dim().x`: `%cluster_nctaid` on one axis.
    Dim(Axis),
    /// `cluster_sync()`: `barrier.cluster.arrive` + `barrier.cluster.wait`.
    Sync,
    /// `peer_read(slice, rank, index) -> T`: `ld.shared::cluster` of the peer's element.
    PeerRead,
    /// `peer_write(slice, rank, index, value)`: `st.shared::cluster`.
    PeerWrite,
}

// Hopper: TMA
/// What an `Intrinsic::Tma` does (PTX `cp.async.bulk.tensor`, `cp.async.bulk.*_group`,
/// `prefetch.tensormap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaOp {
    /// `tma_load(map, tile, coords, bars, i)`: the box at `coords` into the shared
    /// `tile`, its bytes completing on the mbarrier `bars[i]`.
    Load,
    /// `tma_load_multicast(map, tile, coords, bars, i, mask)`: the box at `coords` into
    /// the shared `tile` of every block of the cluster whose rank is a bit of `mask`
    /// (same shared offset), its bytes completing on each one's `bars[i]` (sm_90a).
    LoadMulticast,
    /// `tma_store(map, coords, tile)`: the shared `tile` to the box at `coords`, in
    /// the thread's current bulk group.
    Store,
    /// `bulk_commit_group()`: the thread's uncommitted stores become one group.
    CommitGroup,
    /// `bulk_wait_group_read::<N>()`: all but the `pending` newest groups have read
    /// their shared tiles (which may then be overwritten).
    WaitGroupRead { pending: u8 },
    /// `tma_prefetch(map)`: the map into the descriptor cache.
    Prefetch,
}

// Hopper: wgmma
/// What an `Intrinsic::Wgmma` does (PTX `wgmma.*`, sm_90a).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaOp {
    /// `wgmma_fence()`: `wgmma.fence.sync.aligned`, before the first wgmma of a batch.
    Fence,
    /// `fence_proxy_async()`: `fence.proxy.async.shared::cta`, between ordinary stores to
    /// a shared tile and the `sync_threads()` before a wgmma reads it.
    FenceProxyAsync,
    /// `wgmma_commit_group()`: the thread's uncommitted wgmmas become one group.
    Commit,
    /// `wgmma_wait_group_<pending>()`: all but the `pending` newest groups completed.
    Wait { pending: u8 },
    /// `wgmma_descriptor(tile, index, swizzle_bytes, leading_bytes, stride_bytes)`: the
    /// matrix descriptor of shared `tile[index]..`.
    Descriptor,
    /// `wgmma_m64n<N>k<K>_f32_<in>[_<form>](a.., desc_b, scale_d, c..) -> (d..)`.
    Mma(WgmmaCombo),
    /// `setmaxnreg_inc::<N>()` / `setmaxnreg_dec::<N>()`: the warpgroup's registers per
    /// thread raised or lowered to `count` (`proc::setmaxnreg`).
    SetMaxNreg { increase: bool, count: u16 },
    /// `pack_bf16x2(lo, hi)` / `pack_f16x2(lo, hi) -> u32`: two `f32` rounded to nearest
    /// (even) 16-bit values in one register, `lo` in the low half: an RS wgmma's A
    /// register from two accumulators (`proc::wgmma::a_position`). Per thread, sm_80+.
    PackPair(mma::MmaElem),
}

/// One `wgmma.mma_async.m64nNk*.<acc>.<input>.<input_b>`: its shape, input types,
/// where A comes from and how the shared operands are laid out (`proc::wgmma`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaCombo {
    pub n: u16,
    /// A's element type (and B's, except for the 8-bit integer forms).
    pub input: mma::MmaElem,
    /// B's element type: `input`, or the other signedness of an 8-bit integer A.
    pub input_b: mma::MmaElem,
    pub a: WgmmaA,
    /// B's layout in shared memory (MN-major is PTX's `imm-trans-b` 1).
    pub b: WgmmaMajor,
}

/// Where a wgmma's A operand comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaA {
    /// A shared tile through a descriptor (MN-major is PTX's `imm-trans-a` 1).
    Shared(WgmmaMajor),
    /// Four 32-bit registers per thread of packed 16-bit pairs (PTX's "RS" form):
    /// `proc::wgmma::a_position` says which element each half holds.
    Registers,
}

/// Which dimension of a shared wgmma operand is contiguous: K (PTX's default, no
/// transpose) or M/N (transposed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaMajor {
    K,
    MN,
}

// Hopper
/// What an `Intrinsic::Mbarrier` does (PTX `mbarrier.*`, `fence.mbarrier_init`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarrierOp {
    /// `mbarrier_init(bars, i, count)`: `count` arrivals complete each phase.
    Init,
    /// `mbarrier_arrive(bars, i) -> u64`: one arrival; the token names the phase.
    Arrive,
    /// `mbarrier_arrive_expect_tx(bars, i, bytes) -> u64`: expects `bytes` more
    /// transaction bytes in the current phase, then arrives.
    ArriveExpectTx,
    /// `mbarrier_complete_tx(bars, i, bytes)`: `bytes` of the expected transactions
    /// completed (what a TMA copy does when it lands).
    CompleteTx,
    /// `mbarrier_try_wait_parity(bars, i, parity) -> bool`: whether the phase of
    /// parity `parity & 1` has completed.
    TryWaitParity,
    /// `fence_mbarrier_init()`: makes this thread's inits visible to the cluster.
    FenceInit,
}

/// The threads a fence or an atomic is indivisible / ordered for (CUDA's scopes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryScope {
    /// The thread's block (PTX `.cta`).
    Block,
    /// The whole device (PTX `.gpu`, CUDA's default).
    Device,
    /// The device, the host and other devices (PTX `.sys`).
    System,
}

/// Which lane a shuffle reads (PTX `shfl.sync` modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleMode {
    /// Lane `src_lane % 32`.
    Idx,
    /// Lane `lane - delta`, or the own value if that is below 0.
    Up,
    /// Lane `lane + delta`, or the own value if that is above 31.
    Down,
    /// Lane `lane ^ lane_mask`.
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    All,
    Any,
    /// Whether the predicate is the same in every lane of the mask.
    Eq,
    /// The bits of the lanes whose predicate is true.
    Ballot,
}

/// The combination of a warp reduction (wrapping for integer sums; std's NaN-ignoring
/// min/max for floats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Min,
    Max,
}

/// What an atomic writes, from the old value `old` and its operand `v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `old + v` (wrapping for integers).
    Add,
    /// `old - v` (wrapping for integers).
    Sub,
    /// `old.min(v)` / `old.max(v)` (std's, NaN-ignoring, for floats).
    Min,
    Max,
    /// `v`.
    Exch,
    And,
    Or,
    Xor,
    /// u32: `if old >= v { 0 } else { old + 1 }` (CUDA's `atomicInc`).
    Inc,
    /// u32: `if old == 0 || old > v { v } else { old - 1 }` (CUDA's `atomicDec`).
    Dec,
    /// `if old == expected { new } else { old }`.
    Cas,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Sqrt,
    Rsqrt,
    Cbrt,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Exp2,
    ExpM1,
    Ln,
    Log2,
    Log10,
    Ln1p,
    Powf,
    Powi,
    Hypot,
    Floor,
    Ceil,
    Round,
    Trunc,
    /// `abs` on floats and on signed integers (wrapping, as `i32::abs` in release).
    Abs,
    /// `min`/`max` on floats (NaN-ignoring, as std) and on integers.
    Min,
    Max,
    MulAdd,
    Copysign,
    /// `signum` on floats.
    Signum,
    // Integers, with std's semantics (results u32 for the counts).
    CountOnes,
    LeadingZeros,
    TrailingZeros,
    /// `rotate_left(n: u32)` / `rotate_right(n: u32)`: by `n % BITS`.
    RotateLeft,
    RotateRight,
    SwapBytes,
    ReverseBits,
    /// `pow(exp: u32)`, wrapping (release semantics).
    Pow,
    SaturatingAdd,
    SaturatingSub,
    /// `clamp(min, max)` on integers and floats; panics if `min > max` (or, for
    /// floats, either is NaN) with std's message (`ir::checks`).
    Clamp,
    /// `mul_hi(a, b)`: the high half of the full product (i32 u32 i64 u64).
    MulHi,
    /// An N-d array's per-axis bounds check (`front::nd`): `(index, len)` on usize,
    /// the index itself if `index < len`, else a panic naming the axis
    /// (`ir::checks::ND_AXIS_MESSAGES`). Not a method users can call.
    NdAxis(u8),
    // Floats.
    /// `x - x.trunc()`.
    Fract,
    /// `is_nan()` / `is_finite()`: bool.
    IsNan,
    IsFinite,
    /// `to_bits()`: the unsigned integer of the same width, bit for bit.
    ToBits,
    /// `f32::from_bits(u32)` / `f64::from_bits(u64)`.
    FromBits,
    /// GPU-only approximate f32 functions (`__nv_fast_*`), whatever the fast-math option.
    FastSin,
    FastCos,
    FastExp,
    FastLog,
    FastPowf,
    FastDiv,
}

// `MathFn::arity` is defined beside the signatures it reads, in `proc::methods`: the
// IR sits below the rules and imports none of them.
