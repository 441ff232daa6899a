//! Module-level state: the header, declarations (each once, sorted), panic sites,
//! the functions in arena order, and the metadata that marks kernels.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::function::FunctionWriter;
use super::{grid_sync, panic, types, Error, Options, Output, PanicSite, MODULE_TAG_SYMBOL};
use crate::ir::{self, FunctionKind, Type};
use crate::opt::ranges::{sreg_bounds, SREG_RANGES};
use crate::opt::Optimised;

const DATALAYOUT: &str = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64";

/// Metadata node used as `!prof` on `br i1 %ok, label %ok, label %panic` (and on a
/// versioned run's guard): the true branch is the likely one, the panic is cold.
/// (Before 2026-11-23 the weights were the other way round, which told LLVM that every
/// panic was likely and laid the checked code out around it.)
pub const LIKELY_TRUE_BRANCH_WEIGHTS: &str = "!0";

/// The `!range` node of special register `reg` (`tid.x`), if CUDA bounds it. The nodes
/// are `!1` to `!14`, after the branch weights; kernel annotations follow them.
pub fn sreg_range(reg: &str) -> Option<String> {
    SREG_RANGES
        .iter()
        .position(|(name, _, _)| *name == reg)
        .map(|i| format!("!{}", i + 1))
}

pub struct Writer<'a> {
    pub module: &'a ir::Module,
    /// What the optimiser decided: value ranges, launch-proven copies.
    pub opt: &'a Optimised,
    pub options: &'a Options,
    /// Declared external symbols (intrinsics, libdevice), keyed by name so each is
    /// declared once and the output order is stable.
    decls: BTreeMap<String, String>,
    pub panic_sites: Vec<PanicSite>,
    /// Indices into `panic_sites` that [`Self::add_panic_site`] may reuse.
    pub reusable_sites: std::ops::Range<usize>,
    /// Some function calls `grid_sync()`: the module defines the grid barrier.
    pub uses_grid_sync: bool,
    /// The unrolling hints of loops' back edges, in order (see [`Self::loop_hint`]).
    loop_hints: Vec<LoopHint>,
    /// The block every kernel of the module is launched with (`#[kernel(block_dim =
    /// ..)]`), when they all name the same: `block_dim()` is then a constant and
    /// `thread_idx()` below it, in every function of the module.
    pub block_dim: Option<[u32; 3]>,
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
            loop_hints: Vec::new(),
            block_dim: opt.block_dim,
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

    pub fn write(mut self) -> Result<Output, Error> {
        let mut functions = String::new();
        let mut kernels = Vec::new();
        let mut launch_proofs = Vec::new();
        for (handle, function) in self.module.functions.iter() {
            let first_site = self.panic_sites.len();
            let text = FunctionWriter::new(&mut self, handle, function)?.write()?;
            functions.push_str(&text);
            functions.push('\n');
            if function.kind != FunctionKind::Kernel {
                continue;
            }
            kernels.push((function, function.name.clone()));
            let opt = self.opt;
            if let Some(copy_plan) = opt.proven_copy(handle) {
                let symbol = copy_plan.proof.symbol.clone();
                // The copy's remaining checks report the same sites as the first copy's.
                self.reusable_sites = first_site..self.panic_sites.len();
                let mut copy = FunctionWriter::new(&mut self, handle, function)?;
                copy.proven = copy_plan.proven.clone();
                copy.symbol = Some(symbol.clone());
                let text = copy.write()?;
                self.reusable_sites = 0..0;
                functions.push_str(&text);
                functions.push('\n');
                kernels.push((function, symbol));
                launch_proofs.push(copy_plan.proof.clone());
            }
        }
        if self.uses_grid_sync {
            functions.push_str(&grid_sync::helper_definition(&mut self));
            functions.push('\n');
        }
        if !self.panic_sites.is_empty() {
            functions.push_str(&panic::helper_definition(&mut self));
            functions.push('\n');
        }

        let mut out = String::new();
        let _ = writeln!(out, "; generated by cudajit from Rust source; do not edit");
        let _ = writeln!(out, "target datalayout = \"{DATALAYOUT}\"");
        let _ = writeln!(out, "target triple = \"nvptx64-nvidia-cuda\"\n");
        let _ = writeln!(
            out,
            "; the host stores here the module's tag, which a panic copies into its record"
        );
        let _ = writeln!(
            out,
            "@{MODULE_TAG_SYMBOL} = addrspace(1) externally_initialized global i64 0, align 8\n"
        );
        for (_, global) in self.module.globals.iter() {
            let _ = writeln!(out, "{}", global_definition(global)?);
        }
        if !self.module.globals.is_empty() {
            out.push('\n');
        }
        for decl in self.decls.values() {
            let _ = writeln!(out, "{decl}");
        }
        if !self.decls.is_empty() {
            out.push('\n');
        }
        out.push_str(&functions);

        // Metadata: !0 is the cold-branch weight, the special registers' ranges follow,
        // then the kernels; the version is last.
        let _ = writeln!(
            out,
            "{LIKELY_TRUE_BRANCH_WEIGHTS} = !{{!\"branch_weights\", i32 1048575, i32 1}}"
        );
        for (i, (reg, ..)) in SREG_RANGES.iter().enumerate() {
            let (low, high) = sreg_bounds(reg, self.block_dim).unwrap_or_default();
            let _ = writeln!(out, "!{} = !{{i32 {low}, i32 {high}}}", i + 1);
        }
        let mut next = SREG_RANGES.len() + 1;
        for hint in &self.loop_hints {
            let property = match hint {
                LoopHint::Rolled => "!\"llvm.loop.unroll.disable\"".to_string(),
                LoopHint::Full => "!\"llvm.loop.unroll.full\"".to_string(),
                LoopHint::Times(n) => format!("!\"llvm.loop.unroll.count\", i32 {n}"),
            };
            let _ = writeln!(out, "!{next} = distinct !{{!{next}, !{}}}", next + 1);
            let _ = writeln!(out, "!{} = !{{{property}}}", next + 1);
            next += 2;
        }
        let mut annotation_ids = Vec::new();
        let mut annotations = String::new();
        for (kernel, name) in &kernels {
            let param_types = kernel_param_types(kernel)?;
            let symbol = format!("void ({})* @{}", param_types.join(", "), types::ident(name));
            // `launch_bounds`: `maxntidx` caps the block (ptxas sizes registers for it),
            // `minctasm` asks for that many resident blocks per SM; `block_dim` is
            // `reqntid` instead (PTX allows one of the two).
            let mut properties = vec![("kernel", 1)];
            if let Some(bounds) = kernel.options.launch_bounds {
                match bounds.block_dim {
                    Some([x, y, z]) => {
                        properties.extend([("reqntidx", x), ("reqntidy", y), ("reqntidz", z)])
                    }
                    None => properties.push(("maxntidx", bounds.max_threads)),
                }
                if bounds.min_blocks > 0 {
                    properties.push(("minctasm", bounds.min_blocks));
                }
            }
            for (property, value) in properties {
                let _ = writeln!(
                    annotations,
                    "!{next} = !{{{symbol}, !\"{property}\", i32 {value}}}"
                );
                annotation_ids.push(format!("!{next}"));
                next += 1;
            }
        }
        let _ = writeln!(
            out,
            "!nvvm.annotations = !{{{}}}",
            annotation_ids.join(", ")
        );
        out.push_str(&annotations);
        let (major, minor, dbg_major, dbg_minor) = self.options.ir_version;
        let _ = writeln!(out, "!nvvmir.version = !{{!{next}}}");
        let _ = writeln!(
            out,
            "!{next} = !{{i32 {major}, i32 {minor}, i32 {dbg_major}, i32 {dbg_minor}}}"
        );
        Ok(Output {
            text: out,
            panic_sites: self.panic_sites,
            launch_proofs,
        })
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

/// A module global: shared memory (`internal addrspace(3) global [N x T] undef`, one
/// per `shared_array()` call site, uninitialised as CUDA's `__shared__`) or a constant
/// table (`internal addrspace(4) constant [N x T] [...]`). 16-byte alignment lets
/// NVVM vectorise accesses.
fn global_definition(global: &ir::Global) -> Result<String, Error> {
    let name = types::ident(&global.name);
    let space = global.space.nvvm_number();
    let ty = types::memory(&global.ty)?;
    match (global.space, &global.init) {
        (ir::AddressSpace::Shared, None) => Ok(format!(
            "@{name} = internal addrspace({space}) global {ty} undef, align 16"
        )),
        (ir::AddressSpace::Constant, Some(init)) => Ok(format!(
            "@{name} = internal addrspace({space}) constant {}, align 16",
            types::const_init(init)?
        )),
        (space, _) => Err(Error(format!(
            "global `{}` in {space:?} memory cannot be written",
            global.name
        ))),
    }
}

/// The LLVM types of a kernel's parameters: each parameter's argument slots as the
/// kernel ABI (`proc::abi`) lays them out, the hidden panic record last.
pub fn kernel_param_types(function: &ir::Function) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for param in &function.params {
        let slots = crate::proc::abi::param_slots(&param.ty).ok_or_else(|| {
            Error(format!(
                "kernel `{}`: parameter `{}` has type `{}`, which cannot be passed to a kernel",
                function.name, param.name, param.ty
            ))
        })?;
        for slot in slots {
            out.push(abi_slot_type(slot, &param.ty)?);
        }
    }
    out.push(abi_slot_type(
        crate::proc::abi::ArgSlot::PanicRecord,
        &Type::Unit,
    )?);
    Ok(out)
}

/// The LLVM type of one argument slot of a kernel parameter of type `param`: a slice's
/// address points to its elements, `bool` travels as `i8`, a struct in its memory form
/// (`ir::layout`'s bytes), a length and the panic record's address as `i64`.
pub fn abi_slot_type(slot: crate::proc::abi::ArgSlot, param: &Type) -> Result<String, Error> {
    use crate::proc::abi::ArgSlot;
    Ok(match slot {
        ArgSlot::Pointer => {
            let elem = param.index_result().unwrap_or(Type::Unit);
            format!("{}*", types::memory(&elem)?)
        }
        ArgSlot::Length | ArgSlot::PanicRecord => "i64".to_string(),
        ArgSlot::Scalar(s) => types::scalar_mem(s).to_string(),
        ArgSlot::Struct => types::memory(param)?,
    })
}
