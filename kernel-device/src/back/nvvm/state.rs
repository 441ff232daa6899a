//! The writer's state, shared by the files that write code: the module's [`Writer`]
//! and the function's [`FunctionWriter`] (their methods live in the files of what they
//! write, which import this one and nothing that imports them), the value of an
//! expression ([`Val`]), loop contexts and hints.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{Options, PanicSite};
use crate::ir::{self, Expr, Handle, LoopId};
use crate::opt::ranges::{Ranges, SREG_RANGES};
use crate::opt::Optimised;

/// Metadata node used as `!prof` on `br i1 %ok, label %ok, label %panic` (and on a
/// versioned run's guard): the true branch is the likely one, the panic is cold.
/// (Before 2026-11-23 the weights were the other way round, which told LLVM that every
/// panic was likely and laid the checked code out around it.)
pub const LIKELY_TRUE_BRANCH_WEIGHTS: &str = "!0";

/// The result of lowering an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// `()`: no run-time value.
    Unit,
    /// The expression diverged; the current block is closed (or dead).
    Never,
    /// An LLVM operand (`%x`, `42`, `true`, `0x3FF0000000000000`).
    V(String),
}

/// Unwraps an operand or propagates divergence out of the calling function.
macro_rules! operand {
    ($self:ident, $handle:expr) => {
        match $self.expr($handle)? {
            Val::V(v) => v,
            Val::Never => return Ok(Val::Never),
            Val::Unit => {
                return Err($self.error(format!(
                    "expression {:?} has no value but one is needed",
                    $handle
                )))
            }
        }
    };
}
pub(super) use operand;

pub struct LoopCtx {
    pub id: LoopId,
    pub break_label: String,
    pub continue_label: String,
    /// Where `break value` stores the loop's value.
    pub slot: Option<(String, String)>,
}

pub struct FunctionWriter<'w, 'a> {
    pub w: &'w mut Writer<'a>,
    pub func: &'a ir::Function,
    pub(super) names: HashSet<String>,
    pub(super) allocas: String,
    pub(super) body: String,
    pub(super) open: bool,
    /// Stack slot (pointer operand, LLVM value type) of each local; `None` for locals
    /// without a run-time value (unit).
    pub(super) slots: Vec<Option<(String, String)>>,
    pub loops: Vec<LoopCtx>,
    /// Value ranges of the function's unsigned expressions: indices into arrays that
    /// are always in bounds get no check.
    pub ranges: Ranges<'a>,
    /// The `i1` value of each predicated prefetch's condition written so far, by the
    /// condition's expression: what the loads `ir::Function::predicated_loads` names
    /// are issued under (see `predicated`).
    pub prefetch_conditions: HashMap<Handle<Expr>, String>,
    /// The `cp_async` calls whose alignment a versioned loop's guard decided (see
    /// `async_copy`'s `copies_aligned_before`): written without their test.
    pub aligned_copies: HashSet<Handle<Expr>>,
    /// The kernel's symbol when it is not its name: its copy without the checks its
    /// launches prove (see `launch_proof`).
    pub symbol: Option<String>,
    /// The function's debug scope and current source location (debug info on).
    pub dbg: Option<super::debug_info::FunctionDebug>,
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// The writer of `func`, whose value ranges are `ranges`.
    pub fn new(w: &'w mut Writer<'a>, func: &'a ir::Function, ranges: Ranges<'a>) -> Self {
        let level = match (w.options.debug, func.options.debug_info) {
            (super::debug_info::DebugLevel::None, _) => super::debug_info::DebugLevel::None,
            (_, true) => super::debug_info::DebugLevel::Full,
            (level, false) => level,
        };
        let dbg = (level != super::debug_info::DebugLevel::None).then(|| {
            super::debug_info::FunctionDebug {
                subprogram: w
                    .debug
                    .subprogram(level, &func.name, &func.file, func.loc.line),
                level,
                loc: func.loc,
                pinned: false,
            }
        });
        FunctionWriter {
            w,
            func,
            names: HashSet::new(),
            allocas: String::new(),
            body: String::new(),
            open: true,
            slots: Vec::new(),
            loops: Vec::new(),
            ranges,
            prefetch_conditions: HashMap::new(),
            aligned_copies: HashSet::new(),
            symbol: None,
            dbg,
        }
    }
}

pub struct Writer<'a> {
    pub module: &'a ir::Module,
    /// What the optimiser decided: value ranges, launch-proven copies.
    pub opt: &'a Optimised,
    pub options: &'a Options,
    /// Declared external symbols (intrinsics, libdevice), keyed by name so each is
    /// declared once and the output order is stable.
    pub(super) decls: BTreeMap<String, String>,
    pub panic_sites: Vec<PanicSite>,
    /// Indices into `panic_sites` that [`Self::add_panic_site`] may reuse.
    pub reusable_sites: std::ops::Range<usize>,
    /// Some function calls `grid_sync()`: the module defines the grid barrier.
    pub uses_grid_sync: bool,
    /// Some function addresses tile elements through 32-bit shared pointers
    /// (`mma::shared_window_element_address`): the module's layout makes them 32 bits.
    pub uses_short_shared_pointers: bool,
    /// The unrolling hints of loops' back edges, in order (see [`Self::loop_hint`]).
    pub(super) loop_hints: Vec<LoopHint>,
    /// The block every kernel of the module is launched with (`#[kernel(block_dim =
    /// ..)]`), when they all name the same: `block_dim()` is then a constant and
    /// `thread_idx()` below it, in every function of the module.
    pub block_dim: Option<[u32; 3]>,
    /// The module's debug nodes (see `debug_info`).
    pub debug: super::debug_info::DebugMetadata,
}

impl<'a> Writer<'a> {
    pub fn new(opt: &'a Optimised, options: &'a Options) -> Self {
        Writer {
            module: &opt.module,
            opt,
            options,
            decls: BTreeMap::new(),
            panic_sites: Vec::new(),
            reusable_sites: 0..0,
            uses_grid_sync: false,
            uses_short_shared_pointers: false,
            loop_hints: Vec::new(),
            block_dim: opt.block_dim,
            debug: Default::default(),
        }
    }

    /// Declares `name` with the full `declare` line `decl` (first one wins).
    /// The `!llvm.loop` node of a new loop's back edge carrying `hint`: its own distinct
    /// node, then the hint's, numbered after the special registers' ranges and before
    /// the kernels' annotations.
    pub fn loop_hint(&mut self, hint: LoopHint) -> String {
        self.loop_hints.push(hint);
        format!("!{}", SREG_RANGES.len() + 2 * self.loop_hints.len() - 1)
    }

    pub fn declare(&mut self, name: &str, decl: String) {
        self.decls.entry(name.to_string()).or_insert(decl);
    }

    /// Records a panic site and returns its 1-based id.
    /// The id of `site`: a new one, unless an identical site among `reusable_sites`
    /// (those of a versioned run's fast copy, while its checked copy is written) has one.
    pub fn add_panic_site(&mut self, site: PanicSite) -> u32 {
        let reusable = self
            .panic_sites
            .get(self.reusable_sites.clone())
            .unwrap_or(&[]);
        if let Some(same) = reusable.iter().find(|s| {
            PanicSite {
                id: s.id,
                ..site.clone()
            } == **s
        }) {
            return same.id;
        }
        let id = self.panic_sites.len() as u32 + 1;
        self.panic_sites.push(PanicSite { id, ..site });
        id
    }
}

/// How a loop's back edge asks LLVM to unroll it.
#[derive(Clone, Copy, Debug)]
pub enum LoopHint {
    /// Not at all (`llvm.loop.unroll.disable`).
    Rolled,
    /// Completely (`llvm.loop.unroll.full`).
    Full,
    /// `n` iterations per trip (`llvm.loop.unroll.count`).
    Times(u32),
}

/// A `for` loop's iterator, as in `ir::Stmt::ForRange`.
#[derive(Clone, Copy)]
pub struct RangeSpec {
    pub start: Handle<Expr>,
    pub end: Handle<Expr>,
    pub inclusive: bool,
    /// usize.
    pub step: Option<Handle<Expr>>,
    pub reverse: bool,
    pub unroll: crate::ir::Unroll,
}
