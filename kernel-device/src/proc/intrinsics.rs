//! THE table of intrinsics: every built-in free function a kernel can call, with the
//! way the frontend recognises it, its signature, the effect a scheduler must see and
//! the NVVM symbol it lowers to. Scalar methods (`x.sqrt()`) are in [`super::methods`];
//! their IR form, `Intrinsic::Math`, gets its signature from there through [`signature`].
//!
//! # Adding an intrinsic
//!
//! 1. `ir::Intrinsic`: the new variant (`kernel-device/src/ir/mod.rs`).
//! 2. Here: one row in [`INTRINSICS`] — its name (the user writes it, the twin's
//!    stand-in has it), [`Form`], [`Signature`] and [`Effect`] (what a scheduler must
//!    see: a barrier, a fence, an atomic's place, a warp exchange).
//! 3. Then build: the compiler lists the rest. Each of these `match`es over
//!    `ir::Intrinsic` has no catch-all arm, so each fails until the variant is handled:
//!    the NVVM lowering (`back/nvvm/intrinsics.rs`, `FunctionWriter::intrinsic`) and
//!    the simulator (`back/sim/intrinsics.rs`, its `match intrinsic`).
//! 4. `device_api`: the stand-in the host twin type-checks against (a unit test holds
//!    the stand-ins to the table's names, so a missing one fails `cargo test`).
//!
//! The frontend and the validator read the row and need nothing more. Nothing else
//! should: a list of intrinsics written out anywhere but the table (a `matches!` of
//! "which ones are barriers") is a second definition; read [`Effect`] instead.

use super::methods;
use crate::ir::{
    AddressSpace, AtomicOp, Axis, Intrinsic, MathFn, MemoryScope, ReduceOp, ScalarType,
    ShuffleMode, Type, VoteMode,
};

/// How the frontend recognises a row in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `name(args..)`, typed by the row's signature.
    Call,
    /// `name().x` / `.y` / `.z`: one `u32` per axis. The row holds the X variant.
    DimField,
    /// `name(1)`, `name(2)`, `name(3)`: a `usize` per axis (a tuple for 2 and 3).
    /// The row holds the X variant.
    GridLiteral,
    // async copies
    /// `receiver.name::<N>(args..)` on a slice or array: the receiver is operand 0.
    Method,
}

/// One parameter of a signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Scalar(ScalarType),
    /// The signature's type parameter `T` (one of [`Signature::types`]).
    T,
    /// `&mut [T]` (an atomic's target: with the following `usize` index, its place).
    MutSliceOfT,
    /// The unsigned integer of `T`'s width (`f32::from_bits`'s `u32`).
    Bits,
    // async copies
    /// `&[T]` or `&mut [T]` (a copy's source, a vector load's slice).
    SliceOfT,
    /// `[T; N]` for any `N` (a vector store's values; the intrinsic fixes `N`).
    ArrayOfT,
    // Hopper: TMA
    /// `&TensorMap<T, N>` or `&TensorMapMut<T, N>` (a kernel's map parameter).
    TensorMapOfT,
    /// `&TensorMapMut<T, N>` only: a map stores write through (the host built it from
    /// a `&mut` array).
    WritableTensorMapOfT,
    /// `[i32; N]`, `N` the rank of the call's map: a box's coordinates.
    MapCoords,
    /// `&mut [u64]`: the mbarriers a copy completes on (with the next `usize`, one).
    Barriers,
}

/// The unsigned integer as wide as `t` (`to_bits` / `from_bits`).
pub const fn bits_of(t: ScalarType) -> ScalarType {
    match t {
        S::I8 | S::U8 | S::Bool => S::U8,
        S::I16 | S::U16 | S::F16 | S::BF16 => S::U16,
        S::I32 | S::U32 | S::F32 => S::U32,
        _ => S::U64,
    }
}

/// A signature's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    Unit,
    Scalar(ScalarType),
    T,
    /// The unsigned integer of `T`'s width (`to_bits`).
    Bits,
    /// A tuple of fixed scalars (`match_all_sync`'s `(u32, bool)`).
    Tuple(&'static [ScalarType]),
    /// `dynamic_shared()`'s cursor (`Type::DynamicShared`).
    DynamicShared,
    // async copies
    /// `[T; N]` for any `N` (a vector load; the intrinsic fixes `N`).
    ArrayOfT,
}

/// Parameters and result; `types` lists what `T` may be (empty when nothing is `T`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    pub types: &'static [ScalarType],
    pub params: &'static [Param],
    pub ret: Ret,
}

impl Signature {
    const fn fixed(params: &'static [Param], ret: Ret) -> Signature {
        Signature {
            types: &[],
            params,
            ret,
        }
    }

    /// The result type for a `T` (ignored when the result does not mention it).
    pub fn ret_type(&self, t: Option<ScalarType>) -> Type {
        match self.ret {
            Ret::Unit => Type::Unit,
            Ret::Scalar(s) => Type::Scalar(s),
            Ret::T => t.map_or(Type::Never, Type::Scalar),
            Ret::Bits => t.map_or(Type::Never, |t| Type::Scalar(bits_of(t))),
            Ret::Tuple(items) => Type::Tuple(items.iter().map(|s| Type::Scalar(*s)).collect()),
            Ret::DynamicShared => Type::DynamicShared,
            // async copies: the length is the intrinsic's (`LoadVec { lanes }`).
            Ret::ArrayOfT => Type::Never,
        }
    }

    /// Checks operand types and the result type of a use (the validator's rule).
    pub fn check(&self, name: &str, args: &[Type], ty: &Type) -> Result<(), String> {
        if args.len() != self.params.len() {
            return Err(format!(
                "{name} takes {} operands, {} given",
                self.params.len(),
                args.len()
            ));
        }
        // `T` comes from the operands, or from the result where no operand names it
        // (`f32::from_bits(u32)`).
        let mut t = None;
        for (k, (param, arg)) in self.params.iter().zip(args).enumerate() {
            let bound = match (param, arg) {
                (Param::T, Type::Scalar(a)) => *a,
                (
                    Param::MutSliceOfT,
                    Type::Slice {
                        elem,
                        mutable: true,
                    },
                ) => *elem,
                // async copies
                (Param::SliceOfT, Type::Slice { elem, .. }) => *elem,
                // Hopper: TMA
                (Param::TensorMapOfT, Type::TensorMap { elem, .. }) => *elem,
                (
                    Param::WritableTensorMapOfT,
                    Type::TensorMap {
                        elem,
                        writable: true,
                        ..
                    },
                ) => *elem,
                _ => continue,
            };
            if !self.types.contains(&bound) {
                return Err(format!("{name} is not defined on `{bound}`"));
            }
            if t.is_some_and(|t| t != bound) {
                return Err(format!("operand {k} of {name} is `{arg}`, not `T`"));
            }
            t = Some(bound);
        }
        if t.is_none() && self.ret == Ret::T {
            t = ty.scalar().filter(|s| self.types.contains(s));
        }
        for (k, (param, arg)) in self.params.iter().zip(args).enumerate() {
            let ok = match (param, arg) {
                // A diverging operand (`sqrt(return)`) never produces a value.
                (_, Type::Never) => true,
                (Param::Scalar(s), Type::Scalar(a)) => s == a,
                (Param::T, Type::Scalar(a)) => t == Some(*a),
                (Param::Bits, Type::Scalar(a)) => t.is_some_and(|t| bits_of(t) == *a),
                (
                    Param::MutSliceOfT,
                    Type::Slice {
                        elem,
                        mutable: true,
                    },
                ) => t == Some(*elem),
                // async copies
                (Param::SliceOfT, Type::Slice { elem, .. }) => t == Some(*elem),
                (Param::ArrayOfT, Type::Array { elem, .. }) => {
                    t.map(Type::Scalar) == Some((**elem).clone())
                }
                // Hopper: TMA
                (Param::TensorMapOfT, Type::TensorMap { elem, .. }) => t == Some(*elem),
                (
                    Param::WritableTensorMapOfT,
                    Type::TensorMap {
                        elem,
                        writable: true,
                        ..
                    },
                ) => t == Some(*elem),
                (Param::MapCoords, Type::Array { elem, len }) => **elem == Type::Scalar(S::I32)
                    && args.iter().any(
                        |a| matches!(a, Type::TensorMap { rank, .. } if u64::from(*rank) == *len),
                    ),
                (
                    Param::Barriers,
                    Type::Slice {
                        elem: S::U64,
                        mutable: true,
                    },
                ) => true,
                _ => false,
            };
            if !ok {
                return Err(format!("operand {k} of {name} is `{arg}` ({param:?})"));
            }
        }
        // async copies: an array of `T`, its length checked with the intrinsic.
        if self.ret == Ret::ArrayOfT {
            return match ty {
                Type::Array { elem, .. } if t.map(Type::Scalar) == Some((**elem).clone()) => Ok(()),
                _ => Err(format!("{name} gives `[T; N]`, typed `{ty}`")),
            };
        }
        let expected = self.ret_type(t);
        if *ty != expected {
            return Err(format!("{name} gives `{expected}`, typed `{ty}`"));
        }
        Ok(())
    }
}

/// What a use does besides computing its value: what a scheduler (the simulator, a
/// reordering pass) must not move or merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A value of the thread's state or of the operands only.
    Pure,
    /// Waits for the other threads of the block (or of the warp's mask).
    Barrier,
    /// Waits for every thread of the grid; global memory written before it is visible
    /// to every thread after it. Needs all blocks resident (a cooperative launch).
    GridBarrier,
    // Hopper: clusters
    /// Waits for every non-exited thread of the block's cluster; shared and global
    /// memory written before it (release) is visible to the cluster after it (acquire).
    ClusterBarrier,
    /// Orders this thread's memory accesses.
    Fence,
    /// Reads and writes one element: operand `slice` at operand `index`.
    Atomic { slice: usize, index: usize },
    /// Exchanges values between the lanes of a warp (all lanes of the mask take part).
    Warp,
    // async copies
    /// Reads or writes the memory its operands name, or orders this thread's
    /// asynchronous copies (`cp_async*`, `load_vec`, `store_vec`): kept in place and in
    /// order with the thread's other accesses, never removed.
    Memory,
}

#[derive(Clone, Copy, Debug)]
pub struct IntrinsicDef {
    /// The user-facing name (`sync_threads`), also the twin's stand-in.
    pub name: &'static str,
    pub form: Form,
    pub intrinsic: Intrinsic,
    pub sig: Signature,
    pub effect: Effect,
    /// The NVVM symbol or register it lowers to, where one name says it
    /// (`tid` for `llvm.nvvm.read.ptx.sreg.tid.x`); empty where the writer composes it.
    pub nvvm: &'static str,
}

use Param::Scalar as P;
use ScalarType as S;

const U32_RET: Signature = Signature::fixed(&[], Ret::Scalar(S::U32));
const USIZE_RET: Signature = Signature::fixed(&[], Ret::Scalar(S::Usize));
const UNIT: Signature = Signature::fixed(&[], Ret::Unit);
const BARRIER_WITH_PREDICATE: &[Param] = &[P(S::Bool)];

const fn row(
    name: &'static str,
    form: Form,
    intrinsic: Intrinsic,
    sig: Signature,
    effect: Effect,
    nvvm: &'static str,
) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form,
        intrinsic,
        sig,
        effect,
        nvvm,
    }
}

pub static INTRINSICS: &[IntrinsicDef] = &[
    // Thread position (PTX special registers).
    row(
        "thread_idx",
        Form::DimField,
        Intrinsic::ThreadIdx(Axis::X),
        U32_RET,
        Effect::Pure,
        "tid",
    ),
    row(
        "block_idx",
        Form::DimField,
        Intrinsic::BlockIdx(Axis::X),
        U32_RET,
        Effect::Pure,
        "ctaid",
    ),
    row(
        "block_dim",
        Form::DimField,
        Intrinsic::BlockDim(Axis::X),
        U32_RET,
        Effect::Pure,
        "ntid",
    ),
    row(
        "grid_dim",
        Form::DimField,
        Intrinsic::GridDim(Axis::X),
        U32_RET,
        Effect::Pure,
        "nctaid",
    ),
    row(
        "grid",
        Form::GridLiteral,
        Intrinsic::Grid(Axis::X),
        USIZE_RET,
        Effect::Pure,
        "",
    ),
    row(
        "grid_size",
        Form::GridLiteral,
        Intrinsic::GridSize(Axis::X),
        USIZE_RET,
        Effect::Pure,
        "",
    ),
    // Barriers.
    row(
        "sync_threads",
        Form::Call,
        Intrinsic::SyncThreads,
        UNIT,
        Effect::Barrier,
        "llvm.nvvm.barrier0",
    ),
    // Every thread of the grid; the unit then needs a cooperative launch
    // (`ir::Module::needs_cooperative_launch`). Written by `back::nvvm::grid_sync`.
    row(
        "grid_sync",
        Form::Call,
        Intrinsic::GridSync,
        UNIT,
        Effect::GridBarrier,
        "",
    ),
    // Dynamic shared memory: a cursor whose `take::<T>(n)` carves slices
    // (`ir::ExprKind::DynamicSharedTake`, written by `back::nvvm::slices`).
    row(
        "dynamic_shared",
        Form::Call,
        Intrinsic::DynamicShared,
        Signature::fixed(&[], Ret::DynamicShared),
        Effect::Pure,
        "",
    ),
    row(
        "sync_threads_count",
        Form::Call,
        Intrinsic::SyncThreadsCount,
        Signature::fixed(BARRIER_WITH_PREDICATE, Ret::Scalar(S::U32)),
        Effect::Barrier,
        "llvm.nvvm.barrier0.popc",
    ),
    row(
        "sync_threads_and",
        Form::Call,
        Intrinsic::SyncThreadsAnd,
        Signature::fixed(BARRIER_WITH_PREDICATE, Ret::Scalar(S::Bool)),
        Effect::Barrier,
        "llvm.nvvm.barrier0.and",
    ),
    row(
        "sync_threads_or",
        Form::Call,
        Intrinsic::SyncThreadsOr,
        Signature::fixed(BARRIER_WITH_PREDICATE, Ret::Scalar(S::Bool)),
        Effect::Barrier,
        "llvm.nvvm.barrier0.or",
    ),
    row(
        "sync_warp",
        Form::Call,
        Intrinsic::SyncWarp,
        Signature::fixed(&[P(S::U32)], Ret::Unit),
        Effect::Barrier,
        "llvm.nvvm.bar.warp.sync",
    ),
    // Fences.
    row(
        "threadfence_block",
        Form::Call,
        Intrinsic::Fence(MemoryScope::Block),
        UNIT,
        Effect::Fence,
        "llvm.nvvm.membar.cta",
    ),
    row(
        "threadfence",
        Form::Call,
        Intrinsic::Fence(MemoryScope::Device),
        UNIT,
        Effect::Fence,
        "llvm.nvvm.membar.gl",
    ),
    row(
        "threadfence_system",
        Form::Call,
        Intrinsic::Fence(MemoryScope::System),
        UNIT,
        Effect::Fence,
        "llvm.nvvm.membar.sys",
    ),
];

/// Types CUDA has atomic add/sub/min/max/exchange for (min/max on floats by a
/// compare-and-swap loop).
pub const ATOMIC_NUMBERS: &[ScalarType] = &[S::I32, S::U32, S::I64, S::U64, S::F32, S::F64];
/// Types of the bitwise atomics and compare-and-swap.
pub const ATOMIC_INTEGERS: &[ScalarType] = &[S::I32, S::U32, S::I64, S::U64];
/// `atomic_inc` / `atomic_dec`: CUDA's u32 and, as Numba has them, u64 (a
/// compare-and-swap loop on the GPU: PTX's `atom.inc`/`atom.dec` are 32-bit only).
pub const ATOMIC_WRAPPING: &[ScalarType] = &[S::U32, S::U64];

const ATOMIC_RMW: &[Param] = &[Param::MutSliceOfT, P(S::Usize), Param::T];
const ATOMIC_CAS: &[Param] = &[Param::MutSliceOfT, P(S::Usize), Param::T, Param::T];
const ATOMIC_PLACE: Effect = Effect::Atomic { slice: 0, index: 1 };

/// The three rows of an atomic: `atomic_<op>` (device scope), `_block`, `_system`.
macro_rules! atomic_rows {
    ($($name:literal => $op:ident, $types:expr, $params:expr;)*) => {
        [$(
            atomic_row(concat!("atomic_", $name), AtomicOp::$op, MemoryScope::Device, $types, $params),
            atomic_row(concat!("atomic_", $name, "_block"), AtomicOp::$op, MemoryScope::Block, $types, $params),
            atomic_row(concat!("atomic_", $name, "_system"), AtomicOp::$op, MemoryScope::System, $types, $params),
        )*]
    };
}

const fn atomic_row(
    name: &'static str,
    op: AtomicOp,
    scope: MemoryScope,
    types: &'static [ScalarType],
    params: &'static [Param],
) -> IntrinsicDef {
    row(
        name,
        Form::Call,
        Intrinsic::Atomic { op, scope },
        Signature {
            types,
            params,
            ret: Ret::T,
        },
        ATOMIC_PLACE,
        "",
    )
}

/// Atomics on `&mut [T]`: each returns the old value of `slice[index]`.
pub static ATOMICS: &[IntrinsicDef] = &atomic_rows![
    "add" => Add, ATOMIC_NUMBERS, ATOMIC_RMW;
    "sub" => Sub, ATOMIC_NUMBERS, ATOMIC_RMW;
    "min" => Min, ATOMIC_NUMBERS, ATOMIC_RMW;
    "max" => Max, ATOMIC_NUMBERS, ATOMIC_RMW;
    "exch" => Exch, ATOMIC_NUMBERS, ATOMIC_RMW;
    "and" => And, ATOMIC_INTEGERS, ATOMIC_RMW;
    "or" => Or, ATOMIC_INTEGERS, ATOMIC_RMW;
    "xor" => Xor, ATOMIC_INTEGERS, ATOMIC_RMW;
    "inc" => Inc, ATOMIC_WRAPPING, ATOMIC_RMW;
    "dec" => Dec, ATOMIC_WRAPPING, ATOMIC_RMW;
    "cas" => Cas, ATOMIC_INTEGERS, ATOMIC_CAS;
];

/// What a shuffle, a match or a warp reduction moves: every 32- and 64-bit scalar
/// (64-bit ones as two 32-bit halves, floats as their bits).
pub const WARP_WORDS: &[ScalarType] = &[
    S::I32,
    S::U32,
    S::I64,
    S::U64,
    S::Isize,
    S::Usize,
    S::F32,
    S::F64,
];

const SHUFFLE: Signature = Signature {
    types: WARP_WORDS,
    params: &[P(S::U32), Param::T, P(S::U32)],
    ret: Ret::T,
};
const VOTE: &[Param] = &[P(S::U32), P(S::Bool)];
const MATCH: &[Param] = &[P(S::U32), Param::T];
const REDUCE: Signature = Signature {
    types: WARP_WORDS,
    params: &[Param::T],
    ret: Ret::T,
};

const fn warp(
    name: &'static str,
    intrinsic: Intrinsic,
    sig: Signature,
    nvvm: &'static str,
) -> IntrinsicDef {
    row(name, Form::Call, intrinsic, sig, Effect::Warp, nvvm)
}

/// Warp-level operations: every lane named in `mask` must make the same call.
pub static WARP: &[IntrinsicDef] = &[
    row(
        "lane_id",
        Form::Call,
        Intrinsic::LaneId,
        U32_RET,
        Effect::Pure,
        "laneid",
    ),
    row(
        "warp_size",
        Form::Call,
        Intrinsic::WarpSize,
        U32_RET,
        Effect::Pure,
        "warpsize",
    ),
    row(
        "lanemask_lt",
        Form::Call,
        Intrinsic::LanemaskLt,
        U32_RET,
        Effect::Pure,
        "lanemask.lt",
    ),
    warp(
        "active_mask",
        Intrinsic::ActiveMask,
        U32_RET,
        "activemask.b32",
    ),
    warp(
        "shfl_sync",
        Intrinsic::Shuffle(ShuffleMode::Idx),
        SHUFFLE,
        "llvm.nvvm.shfl.sync.idx.i32",
    ),
    warp(
        "shfl_up_sync",
        Intrinsic::Shuffle(ShuffleMode::Up),
        SHUFFLE,
        "llvm.nvvm.shfl.sync.up.i32",
    ),
    warp(
        "shfl_down_sync",
        Intrinsic::Shuffle(ShuffleMode::Down),
        SHUFFLE,
        "llvm.nvvm.shfl.sync.down.i32",
    ),
    warp(
        "shfl_xor_sync",
        Intrinsic::Shuffle(ShuffleMode::Xor),
        SHUFFLE,
        "llvm.nvvm.shfl.sync.bfly.i32",
    ),
    warp(
        "all_sync",
        Intrinsic::Vote(VoteMode::All),
        Signature::fixed(VOTE, Ret::Scalar(S::Bool)),
        "llvm.nvvm.vote.all.sync",
    ),
    warp(
        "any_sync",
        Intrinsic::Vote(VoteMode::Any),
        Signature::fixed(VOTE, Ret::Scalar(S::Bool)),
        "llvm.nvvm.vote.any.sync",
    ),
    warp(
        "eq_sync",
        Intrinsic::Vote(VoteMode::Eq),
        Signature::fixed(VOTE, Ret::Scalar(S::Bool)),
        "llvm.nvvm.vote.uni.sync",
    ),
    warp(
        "ballot_sync",
        Intrinsic::Vote(VoteMode::Ballot),
        Signature::fixed(VOTE, Ret::Scalar(S::U32)),
        "llvm.nvvm.vote.ballot.sync",
    ),
    warp(
        "match_any_sync",
        Intrinsic::MatchAny,
        Signature {
            types: WARP_WORDS,
            params: MATCH,
            ret: Ret::Scalar(S::U32),
        },
        "llvm.nvvm.match.any.sync",
    ),
    warp(
        "match_all_sync",
        Intrinsic::MatchAll,
        Signature {
            types: WARP_WORDS,
            params: MATCH,
            ret: Ret::Tuple(&[S::U32, S::Bool]),
        },
        "llvm.nvvm.match.all.sync",
    ),
    warp(
        "warp_reduce_sum",
        Intrinsic::WarpReduce(ReduceOp::Sum),
        REDUCE,
        "",
    ),
    warp(
        "warp_reduce_min",
        Intrinsic::WarpReduce(ReduceOp::Min),
        REDUCE,
        "",
    ),
    warp(
        "warp_reduce_max",
        Intrinsic::WarpReduce(ReduceOp::Max),
        REDUCE,
        "",
    ),
];

const fn math(name: &'static str, f: MathFn) -> IntrinsicDef {
    row(
        name,
        Form::Call,
        Intrinsic::Math(f),
        methods::math_signature(f),
        Effect::Pure,
        "",
    )
}

/// GPU-only math as free functions: `rsqrt(x)`, the approximate f32 `fast_*`
/// (libdevice's `__nv_fast_*f`, whatever the fast-math option) and `mul_hi(a, b)`.
pub static MATH: &[IntrinsicDef] = &[
    math("rsqrt", MathFn::Rsqrt),
    math("fast_sin", MathFn::FastSin),
    math("fast_cos", MathFn::FastCos),
    math("fast_exp", MathFn::FastExp),
    math("fast_log", MathFn::FastLog),
    math("fast_powf", MathFn::FastPowf),
    math("fast_div", MathFn::FastDiv),
    math("mul_hi", MathFn::MulHi),
];

/// Every row, of every table.
pub fn all() -> impl Iterator<Item = &'static IntrinsicDef> {
    INTRINSICS
        .iter()
        .chain(ATOMICS)
        .chain(WARP)
        .chain(MATH)
        // async copies
        .chain(super::async_copy::ASYNC_COPIES)
        // tensor cores
        .chain(super::mma::MMA_INTRINSICS)
        .chain(super::mma::MATRIX_INTRINSICS)
        // Hopper
        .chain(super::mbarrier::MBARRIER_INTRINSICS)
        // Hopper: wgmma
        .chain(super::wgmma::WGMMA_INTRINSICS)
        .chain(super::wgmma::WGMMA_MMA_INTRINSICS)
        .chain(super::setmaxnreg::SETMAXNREG_INTRINSICS)
        // Hopper: TMA
        .chain(super::tma_intrinsics::TMA_INTRINSICS)
        // Hopper: clusters
        .chain(super::cluster::CLUSTER_INTRINSICS)
}

/// A built-in that allocates memory instead of computing a value: the frontend makes a
/// module global (`ir::Global`) for each call site and the call's value is a reference
/// to it (`ir::ExprKind::AddressOf`), so these have no `ir::Intrinsic`.
#[derive(Clone, Copy, Debug)]
pub struct MemoryDef {
    /// The user-facing name, also the twin's stand-in.
    pub name: &'static str,
    pub space: AddressSpace,
    // Hopper: TMA
    /// Whether the call names the memory's alignment as its second generic argument
    /// (`shared_array_aligned::<A, 1024>()`; `proc::tma::check_shared_align`'s rule).
    pub aligned: bool,
}

pub static MEMORY_INTRINSICS: &[MemoryDef] = &[
    // `shared_array::<[T; N]>()` / `shared_array::<[[T; N]; M]>()`, or with the array
    // type inferred from the use: one `addrspace(3)` array per call site, per block.
    MemoryDef {
        name: "shared_array",
        space: AddressSpace::Shared,
        aligned: false,
    },
    // Hopper: TMA
    // `shared_array_aligned::<[T; N], ALIGN>()`: the same, its first element aligned to
    // `ALIGN` bytes (a swizzled TMA destination or wgmma operand).
    MemoryDef {
        name: "shared_array_aligned",
        space: AddressSpace::Shared,
        aligned: true,
    },
];

/// The row a called name refers to.
pub fn by_name(name: &str) -> Option<&'static IntrinsicDef> {
    all().find(|d| d.name == name)
}

/// The memory row a called name refers to.
pub fn memory_by_name(name: &str) -> Option<&'static MemoryDef> {
    MEMORY_INTRINSICS.iter().find(|d| d.name == name)
}

pub fn is_intrinsic_name(name: &str) -> bool {
    by_name(name).is_some() || memory_by_name(name).is_some()
}

/// The intrinsic with its axis set to X: the key of the per-axis rows.
fn axis_x(i: Intrinsic) -> Intrinsic {
    match i {
        Intrinsic::ThreadIdx(_) => Intrinsic::ThreadIdx(Axis::X),
        Intrinsic::BlockIdx(_) => Intrinsic::BlockIdx(Axis::X),
        Intrinsic::BlockDim(_) => Intrinsic::BlockDim(Axis::X),
        Intrinsic::GridDim(_) => Intrinsic::GridDim(Axis::X),
        Intrinsic::Grid(_) => Intrinsic::Grid(Axis::X),
        Intrinsic::GridSize(_) => Intrinsic::GridSize(Axis::X),
        // async copies: one row per name, whatever its constant.
        // Hopper: wgmma (`setmaxnreg_*`, likewise)
        // Hopper: TMA (`bulk_wait_group_read::<N>`, likewise)
        other => super::cluster::row_key(super::tma_intrinsics::row_key(
            super::setmaxnreg::row_key(super::async_copy::row_key(other)),
        )),
    }
}

/// The row of an IR intrinsic (`None` for `Math`, whose rows are the methods').
pub fn def_of(i: Intrinsic) -> Option<&'static IntrinsicDef> {
    let key = axis_x(i);
    all().find(|d| d.intrinsic == key)
}

/// The IR intrinsic of a per-axis row on `axis`.
pub fn on_axis(i: Intrinsic, axis: Axis) -> Intrinsic {
    match i {
        Intrinsic::ThreadIdx(_) => Intrinsic::ThreadIdx(axis),
        Intrinsic::BlockIdx(_) => Intrinsic::BlockIdx(axis),
        Intrinsic::BlockDim(_) => Intrinsic::BlockDim(axis),
        Intrinsic::GridDim(_) => Intrinsic::GridDim(axis),
        Intrinsic::Grid(_) => Intrinsic::Grid(axis),
        Intrinsic::GridSize(_) => Intrinsic::GridSize(axis),
        // Hopper: clusters
        other => super::cluster::on_axis(other, axis),
    }
}

/// The signature of any IR intrinsic, math included.
pub fn signature(i: Intrinsic) -> Signature {
    match i {
        Intrinsic::Math(f) => methods::math_signature(f),
        _ => def_of(i).map_or(UNIT, |d| d.sig),
    }
}

/// The effect of any IR intrinsic (math is pure).
pub fn effect(i: Intrinsic) -> Effect {
    def_of(i).map_or(Effect::Pure, |d| d.effect)
}

/// "i32, u32, i64" for hints.
pub fn type_list(types: &[ScalarType]) -> String {
    types
        .iter()
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_rows_round_trip() {
        let rows: Vec<_> = all().collect();
        for (k, d) in rows.iter().enumerate() {
            assert!(
                rows[..k].iter().all(|e| e.name != d.name),
                "{} twice",
                d.name
            );
            assert_eq!(def_of(d.intrinsic).map(|e| e.name), Some(d.name));
            let generic = d
                .sig
                .params
                .iter()
                // Hopper: TMA (a map's `T`)
                .any(|p| {
                    matches!(
                        p,
                        Param::T
                            | Param::MutSliceOfT
                            | Param::SliceOfT
                            | Param::TensorMapOfT
                            | Param::WritableTensorMapOfT
                    )
                });
            assert_eq!(generic, !d.sig.types.is_empty(), "{}: types", d.name);
            if let Effect::Atomic { slice, index } = d.effect {
                assert_eq!(d.sig.params[slice], Param::MutSliceOfT, "{}", d.name);
                assert_eq!(d.sig.params[index], Param::Scalar(S::Usize), "{}", d.name);
            }
        }
    }

    /// The host twin calls `device_api`'s stand-ins by the same names: every called
    /// row must have one (the per-axis and literal forms have their own: `thread_idx()`
    /// returns a `Dim3`, `grid(2)` is rewritten to `grid_2()`).
    #[test]
    fn every_row_has_a_twin_stand_in() {
        let sources = crate::device_api::SOURCES.concat();
        for d in MEMORY_INTRINSICS {
            assert!(
                sources.contains(&format!("pub fn {}<", d.name)),
                "device_api has no stand-in for `{}`",
                d.name
            );
        }
        for d in all() {
            let stand_in = match d.form {
                Form::Call | Form::DimField | Form::Method => d.name.to_string(),
                Form::GridLiteral => format!("{}_1", d.name),
            };
            // `pub fn name(..`, `pub fn name<T>(..`, or one of the names of a
            // `scoped!` stand-in (`fn atomic_add, atomic_add_block, atomic_add_system<T..`).
            let declared = ["fn ", ", "].iter().any(|before| {
                ["(", "<", ","]
                    .iter()
                    .any(|after| sources.contains(&format!("{before}{stand_in}{after}")))
            });
            assert!(
                declared,
                "device_api has no `{stand_in}..` for intrinsic `{}`",
                d.name
            );
        }
    }

    /// The twin's atomic traits (`device_api::atomic`, which rustc checks kernels
    /// against) are implemented for exactly the element types of the table's rows.
    #[test]
    fn the_twin_s_atomic_element_types_are_the_table_s() {
        let source = crate::device_api::SOURCES.concat();
        let listed = |mac: &str| -> Vec<ScalarType> {
            let start = source
                .find(&format!("\n{mac}!("))
                .unwrap_or_else(|| panic!("device_api invokes no `{mac}!`"));
            let args = &source[start + mac.len() + 3..];
            let args = &args[..args.find(')').expect("closed")];
            args.split(|c: char| c == ',' || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .map(|t| ScalarType::from_rust_name(t).expect("a scalar type"))
                .collect()
        };
        assert_eq!(listed("atomic_integer"), ATOMIC_INTEGERS);
        let numbers: Vec<ScalarType> = [listed("atomic_integer"), listed("atomic_float")].concat();
        assert_eq!(numbers, ATOMIC_NUMBERS);
        assert_eq!(listed("atomic_wrapping"), ATOMIC_WRAPPING);
        for (name, types) in [
            ("atomic_add", ATOMIC_NUMBERS),
            ("atomic_and_block", ATOMIC_INTEGERS),
            ("atomic_cas_system", ATOMIC_INTEGERS),
            ("atomic_inc", ATOMIC_WRAPPING),
        ] {
            assert_eq!(by_name(name).unwrap().sig.types, types, "{name}");
        }
    }

    #[test]
    fn the_validator_rule_holds_atomics_warp_ops_and_bits_to_their_types() {
        let slice = |elem, mutable| Type::Slice { elem, mutable };
        let sc = Type::Scalar;
        let add = by_name("atomic_add").unwrap().sig;
        let ok = [slice(S::F32, true), sc(S::Usize), sc(S::F32)];
        assert!(add.check("add", &ok, &sc(S::F32)).is_ok());
        let immutable = [slice(S::F32, false), sc(S::Usize), sc(S::F32)];
        assert!(add.check("add", &immutable, &sc(S::F32)).is_err());
        let mixed = [slice(S::F32, true), sc(S::Usize), sc(S::F64)];
        assert!(add.check("add", &mixed, &sc(S::F32)).is_err());
        let bytes = [slice(S::U8, true), sc(S::Usize), sc(S::U8)];
        assert!(add.check("add", &bytes, &sc(S::U8)).is_err());
        let and = by_name("atomic_and_block").unwrap().sig;
        assert!(and.check("and", &ok, &sc(S::F32)).is_err());
        let shfl = by_name("shfl_xor_sync").unwrap().sig;
        let args = [sc(S::U32), sc(S::F64), sc(S::U32)];
        assert!(shfl.check("shfl", &args, &sc(S::F64)).is_ok());
        let args = [sc(S::U32), sc(S::Bool), sc(S::U32)];
        assert!(shfl.check("shfl", &args, &sc(S::Bool)).is_err());
        let from_bits = signature(Intrinsic::Math(MathFn::FromBits));
        assert!(from_bits
            .check("from_bits", &[sc(S::U64)], &sc(S::F64))
            .is_ok());
        assert!(from_bits
            .check("from_bits", &[sc(S::U32)], &sc(S::F64))
            .is_err());
        let to_bits = signature(Intrinsic::Math(MathFn::ToBits));
        assert!(to_bits.check("to_bits", &[sc(S::F32)], &sc(S::U32)).is_ok());
        assert!(to_bits
            .check("to_bits", &[sc(S::F32)], &sc(S::U64))
            .is_err());
        let all = by_name("match_all_sync").unwrap().sig;
        let pair = Type::Tuple(vec![sc(S::U32), sc(S::Bool)]);
        assert!(all
            .check("match_all", &[sc(S::U32), sc(S::I64)], &pair)
            .is_ok());
    }

    #[test]
    fn effects_name_what_a_scheduler_must_see() {
        assert_eq!(effect(Intrinsic::SyncThreads), Effect::Barrier);
        assert_eq!(by_name("sync_warp").unwrap().effect, Effect::Barrier);
        assert_eq!(by_name("threadfence_system").unwrap().effect, Effect::Fence);
        assert_eq!(
            by_name("atomic_cas_system").unwrap().effect,
            Effect::Atomic { slice: 0, index: 1 }
        );
        assert_eq!(by_name("ballot_sync").unwrap().effect, Effect::Warp);
        assert_eq!(by_name("lane_id").unwrap().effect, Effect::Pure);
        assert_eq!(effect(Intrinsic::Math(MathFn::Sqrt)), Effect::Pure);
    }

    #[test]
    fn signatures_check_operands() {
        let sig = signature(Intrinsic::SyncThreads);
        assert!(sig.check("SyncThreads", &[], &Type::Unit).is_ok());
        assert!(sig
            .check("SyncThreads", &[Type::Scalar(S::U32)], &Type::Unit)
            .is_err());
    }
}
