//! Tensor-core instructions as NVVM IR inline PTX: `mma.sync`, `ldmatrix`, `stmatrix`.
//! What exists and which register holds which element is `proc::mma`'s table; this
//! module only prints.
//!
//! `mma.sync` is a pure asm (no `sideeffect`): its result depends on its operands only,
//! so LLVM may schedule it (and interleave independent MMAs) as nvcc does; the
//! accumulator inputs are tied to the outputs ("0", "1", ..) so that C and D share
//! registers. `ldmatrix`/`stmatrix` read or write shared memory, so they are
//! `sideeffect` with a `memory` clobber: never moved across a barrier or a store
//! (CUTLASS's `asm volatile`). Their address is a 32-bit shared-window address (the
//! "r" operand nvcc passes), made from an `addrspace(3)` pointer by `ptrtoint`; the
//! address of an element at a one-term index is a `getelementptr` on that 32-bit
//! pointer, so that the backend splits the index's constant terms into the PTX
//! address's immediate offset, as nvcc does; at a sum of terms (a pipeline stage plus
//! a row), the base's address plus each term's bytes (see
//! `shared_tile_element_address`: one index would fold the stage into an `or`).

use super::state::{operand, FunctionWriter, Val};
use super::Error;
use crate::ir::{Expr, Function, Handle, Type};
use crate::opt::ranges::Ranges;
use crate::opt::terms::{additive_terms, constant_given, unrolled_loop_variables, Split, Term};
use crate::proc::mma::{fragment_len, MmaCombo, MmaElem, MmaRole, MmaShape};

/// How a fragment travels through `mma.sync`: the LLVM type of one register, its
/// count, and the inline-asm constraint letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registers {
    pub llvm: &'static str,
    pub count: usize,
    pub constraint: char,
}

/// The registers of a fragment: 32-bit `r` registers packing 2 (16-bit) or 4 (8-bit)
/// elements, or one per element for f32 (`f`) and f64 (`d`) accumulators, tf32 inputs
/// and f64 inputs.
pub fn registers(shape: MmaShape, role: MmaRole, elem: MmaElem) -> Registers {
    let len = fragment_len(shape, role);
    match elem {
        MmaElem::F64 => Registers {
            llvm: "double",
            count: len,
            constraint: 'd',
        },
        MmaElem::F32 => Registers {
            llvm: "float",
            count: len,
            constraint: 'f',
        },
        // tf32 inputs are b32 registers holding the f32 bits.
        MmaElem::Tf32 | MmaElem::I32 => Registers {
            llvm: "i32",
            count: len,
            constraint: 'r',
        },
        MmaElem::F16 | MmaElem::BF16 => Registers {
            llvm: "i32",
            count: len / 2,
            constraint: 'r',
        },
        MmaElem::I8 | MmaElem::U8 | MmaElem::E4M3 => Registers {
            llvm: "i32",
            count: len / 4,
            constraint: 'r',
        },
    }
}

/// `{$first, .., $(first + count - 1)}`.
fn operand_list(first: usize, count: usize) -> String {
    let items: Vec<String> = (first..first + count).map(|i| format!("${i}")).collect();
    format!("{{{}}}", items.join(", "))
}

/// The LLVM struct type of `count` values of `llvm` (the asm's result).
pub fn struct_type(llvm: &str, count: usize) -> String {
    format!("{{ {} }}", vec![llvm; count].join(", "))
}

/// The call of `mma.sync` for `combo` on register values `a`, `b`, `c` (LLVM operand
/// names, each of its fragment's register type): an expression of
/// [`struct_type`]`(d.llvm, d.count)` holding D's registers.
pub fn mma_call(combo: MmaCombo, a: &[String], b: &[String], c: &[String]) -> String {
    let ra = registers(combo.shape, MmaRole::A, combo.input);
    let rb = registers(combo.shape, MmaRole::B, combo.input);
    let rc = registers(combo.shape, MmaRole::Acc, combo.acc);
    assert_eq!(
        (a.len(), b.len(), c.len()),
        (ra.count, rb.count, rc.count),
        "{combo:?}"
    );
    let d = rc.count;
    let text = format!(
        "{} {}, {}, {}, {};",
        combo.instruction(),
        operand_list(0, d),
        operand_list(d, ra.count),
        operand_list(d + ra.count, rb.count),
        operand_list(d + ra.count + rb.count, rc.count),
    );
    let mut constraints: Vec<String> = (0..d).map(|_| format!("={}", rc.constraint)).collect();
    constraints.extend((0..ra.count).map(|_| ra.constraint.to_string()));
    constraints.extend((0..rb.count).map(|_| rb.constraint.to_string()));
    // C tied to D: the same registers in and out.
    constraints.extend((0..rc.count).map(|i| i.to_string()));
    let args: Vec<String> = a
        .iter()
        .map(|v| format!("{} {v}", ra.llvm))
        .chain(b.iter().map(|v| format!("{} {v}", rb.llvm)))
        .chain(c.iter().map(|v| format!("{} {v}", rc.llvm)))
        .collect();
    format!(
        "call {} asm \"{text}\", \"{}\"({})",
        struct_type(rc.llvm, d),
        constraints.join(","),
        args.join(", ")
    )
}

/// The call of `ldmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16` from the
/// 32-bit shared address `address` (an `i32` operand): a struct of `count` `i32`s, or
/// one `i32` for `.x1` (LLVM returns a single asm output unwrapped).
pub fn ldmatrix_call(count: usize, trans: bool, address: &str) -> String {
    assert!(matches!(count, 1 | 2 | 4));
    let trans = if trans { ".trans" } else { "" };
    let mut constraints: Vec<&str> = vec!["=r"; count];
    constraints.extend(["r", "~{memory}"]);
    format!(
        "call {} asm sideeffect \"ldmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16 {}, [${count}];\", \"{}\"(i32 {address})",
        if count == 1 {
            "i32".to_string()
        } else {
            struct_type("i32", count)
        },
        operand_list(0, count),
        constraints.join(",")
    )
}

/// The call of `stmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16` (sm_90+) of
/// the `i32` registers `values` to the 32-bit shared address `address`.
pub fn stmatrix_call(trans: bool, address: &str, values: &[String]) -> String {
    let count = values.len();
    assert!(matches!(count, 1 | 2 | 4));
    let trans = if trans { ".trans" } else { "" };
    let mut constraints: Vec<&str> = vec!["r"; count + 1];
    constraints.push("~{memory}");
    let args: Vec<String> = std::iter::once(format!("i32 {address}"))
        .chain(values.iter().map(|v| format!("i32 {v}")))
        .collect();
    format!(
        "call void asm sideeffect \"stmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16 [$0], {};\", \"{}\"({})",
        operand_list(1, count),
        constraints.join(","),
        args.join(", ")
    )
}

/// `cvt.rna.tf32.f32` of an `f32` value: an `i32` holding the tf32's bits (a `.b32`
/// register; bitcast it to `float`).
pub fn to_tf32_call(value: &str) -> String {
    format!("call i32 asm \"cvt.rna.tf32.f32 $0, $1;\", \"=r,f\"(float {value})")
}

impl FunctionWriter<'_, '_> {
    /// `mma_<shape>_<input>_<acc>(a.., b.., c..)`: the operands are the fragments'
    /// registers in order (A's, B's, then C's), the value D's registers as the IR's
    /// tuple (an LLVM struct of the same types, which the asm returns).
    pub(super) fn mma(&mut self, combo: MmaCombo, args: &[Handle<Expr>]) -> Result<Val, Error> {
        let counts = [
            registers(combo.shape, MmaRole::A, combo.input).count,
            registers(combo.shape, MmaRole::B, combo.input).count,
            registers(combo.shape, MmaRole::Acc, combo.acc).count,
        ];
        if args.len() != counts.iter().sum::<usize>() {
            return Err(self.error(format!("{combo:?} takes {counts:?} registers")));
        }
        // A target known to lack tensor cores is an error naming the feature (the
        // JIT knows the device's architecture), not a libnvvm failure about PTX.
        if let Some(arch) = self.w.options.arch.filter(|&a| a < MMA_MIN_ARCH) {
            return Err(self.error(format!(
                "tensor cores (`mma.sync.{}` of {} inputs) need compute capability {}.0 or later; the target is compute_{arch}",
                combo.shape.ptx(),
                combo.input.rust_name(),
                MMA_MIN_ARCH / 10
            )));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        let (a, rest) = vals.split_at(counts[0]);
        let (b, c) = rest.split_at(counts[1]);
        Ok(Val::V(self.def("mma", mma_call(combo, a, b, c))))
    }
}

impl FunctionWriter<'_, '_> {
    /// The 32-bit shared-window address of `tile[offset]` after checking that the
    /// lane's whole 16-byte row `tile[offset..offset + 16 / size]` is inside the tile
    /// (unless `opt::elide` proved it for every lane: `offset_expr` is unchecked).
    fn matrix_row_address(
        &mut self,
        site: Handle<Expr>,
        tile: Handle<Expr>,
        tile_val: &str,
        (offset_expr, offset): (Handle<Expr>, &str),
    ) -> Result<String, Error> {
        let slice_ty: Type = self.ty_of(tile)?.clone();
        let Type::Slice { elem, .. } = slice_ty else {
            return Err(self.error(format!("ldmatrix/stmatrix on a `{slice_ty}`")));
        };
        if !self.func.unchecked_indices.contains(&offset_expr) {
            let width = 16 / u64::from(elem.size_bytes());
            let last = self.def(
                "matrix.row.last",
                format!("add i64 {offset}, {}", width - 1),
            );
            self.checked_element_ptr(site, &slice_ty, tile_val, &last)?;
            self.checked_element_ptr(site, &slice_ty, tile_val, offset)?;
        }
        let (base, _) = self.slice_parts(&slice_ty, tile_val)?;
        self.shared_tile_element_address(elem, &base, (offset_expr, offset))
    }

    /// The 32-bit shared-window address of element `index` (lowered: `wide`, in
    /// bounds) of the shared slice based at `base`: when the index is a sum of
    /// arithmetic on locals, the base's address plus each term's bytes, in the order
    /// of [`tile_address_terms`]. Why: a stage offset `(j % 2) * tile` summed with a
    /// row and a chunk offset in one index becomes an `or` (LLVM turns an add of
    /// disjoint bits into one, and merges a chain of GEPs into one index first), which
    /// ptxas cannot split: every `ldmatrix` of attention's tile step recomputed its
    /// whole address (two IMADs each). Added to the base (whose bits LLVM does not
    /// know) one at a time, the terms stay apart, LLVM hoists the loop-invariant ones
    /// together, and the loop adds the stage once per hoisted offset (attention D64:
    /// 1,192 SASS per tile step to 1,164, nvcc's 1,136, and no spill; a GEP on a stage
    /// base added as an integer spilled 184 bytes). An index of one term keeps its GEP.
    pub(super) fn shared_tile_element_address(
        &mut self,
        elem: crate::ir::ScalarType,
        base: &str,
        (index, wide): (Handle<Expr>, &str),
    ) -> Result<String, Error> {
        let terms = tile_address_terms(self.func, &self.ranges, index);
        if terms.len() < 2 || !self.is_pure_integer(index) {
            let low = self.narrow_index(index, wide)?;
            return Ok(self.shared_element_window_address(elem, base, &low));
        }
        self.w.uses_short_shared_pointers = true;
        let mem = super::types::scalar_mem(elem);
        let shared = self.shared_pointer(mem, base);
        let mut address = self.def(
            "shared.addr",
            format!("ptrtoint {mem} addrspace(3)* {shared} to i32"),
        );
        for term in terms {
            // Arithmetic on locals: lowering it again gives its value (LLVM drops the
            // 64-bit copy that `narrow_index` does not use).
            let Val::V(term_wide) = self.expr(term.expr)? else {
                return Err(self.error("an index term without a value"));
            };
            let low = self.narrow_index(term.expr, &term_wide)?;
            // The term's bytes modulo 2^32 (the 64-bit index wraps), as an i32 literal.
            let unit_bytes = term.scale.wrapping_mul(u64::from(elem.size_bytes())) as u32;
            let bytes = self.def(
                "shared.offset",
                format!("mul i32 {low}, {}", unit_bytes as i32),
            );
            address = self.def("shared.addr", format!("add i32 {address}, {bytes}"));
        }
        Ok(address)
    }

    /// The 32-bit shared-window address (PTX's `"r"` operand of a `.shared` access) of
    /// the generic pointer `ptr` to a `mem`, known to point into shared memory.
    pub(super) fn shared_window_address(&mut self, mem: &str, ptr: &str) -> String {
        let shared = self.shared_pointer(mem, ptr);
        self.def(
            "shared.addr",
            format!("ptrtoint {mem} addrspace(3)* {shared} to i32"),
        )
    }

    /// The 32-bit shared-window address of element `index` (an in-bounds `i32`) of the
    /// generic pointer `ptr` to `mem`s, known to point into shared memory.
    pub(super) fn shared_window_element_address(
        &mut self,
        mem: &str,
        ptr: &str,
        index: &str,
    ) -> String {
        self.w.uses_short_shared_pointers = true;
        let shared = self.shared_pointer(mem, ptr);
        let element = self.def(
            "shared.elem",
            format!("getelementptr inbounds {mem}, {mem} addrspace(3)* {shared}, i32 {index}"),
        );
        self.def(
            "shared.addr",
            format!("ptrtoint {mem} addrspace(3)* {element} to i32"),
        )
    }

    /// `ptr` (generic, into shared memory) as a 32-bit `addrspace(3)` pointer.
    fn shared_pointer(&mut self, mem: &str, ptr: &str) -> String {
        self.def(
            "shared.ptr",
            format!("addrspacecast {mem}* {ptr} to {mem} addrspace(3)*"),
        )
    }

    fn require_arch(&self, what: &str, min: u32) -> Result<(), Error> {
        match self.w.options.arch.filter(|&a| a < min) {
            Some(arch) => Err(self.error(format!(
                "{what} needs compute capability {}.0 or later; the target is compute_{arch}",
                min / 10
            ))),
            None => Ok(()),
        }
    }

    /// `ldmatrix_x{count}[_trans](tile, offset)`.
    pub(super) fn ldmatrix(
        &mut self,
        site: Handle<Expr>,
        count: u8,
        trans: bool,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        self.require_arch("`ldmatrix` (tensor cores)", MMA_MIN_ARCH)?;
        if args.len() != 2 {
            return Err(self.error("ldmatrix takes (tile, offset)"));
        }
        let (tile, offset) = (operand!(self, args[0]), operand!(self, args[1]));
        let address = self.matrix_row_address(site, args[0], &tile, (args[1], &offset))?;
        Ok(Val::V(self.def(
            "ldmatrix",
            ldmatrix_call(usize::from(count), trans, &address),
        )))
    }

    /// `stmatrix_x{count}[_trans](tile, offset, registers..)`.
    pub(super) fn stmatrix(
        &mut self,
        site: Handle<Expr>,
        count: u8,
        trans: bool,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        self.require_arch("`stmatrix`", STMATRIX_MIN_ARCH)?;
        if args.len() != 2 + usize::from(count) {
            return Err(self.error("stmatrix takes (tile, offset, registers..)"));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        let address = self.matrix_row_address(site, args[0], &vals[0], (args[1], &vals[1]))?;
        self.inst(&stmatrix_call(trans, &address, &vals[2..]));
        Ok(Val::Unit)
    }
}

/// The terms of a shared tile's element index, in the order their bytes are added to
/// the tile's base: the index's `+` terms with literal factors distributed
/// (`(np * 16 + row) * 64` is `np * 16 * 64` and `row * 64`), and the terms that are
/// constants once `#[unroll]` has unrolled their loops (a tile's offset) last, each
/// group in written order. Why: so that LLVM keeps one register per row term and
/// ptxas folds each tile's offset into the `ldmatrix` immediate, as nvcc's code does,
/// whichever way the source spells the index; `(np * 16 + row) * 64` kept whole
/// became `row * 64 | np * 1024`, one live register per tile (attention D = 64: 8 for
/// V, and 10% of its time on the H200).
pub fn tile_address_terms(func: &Function, ranges: &Ranges<'_>, index: Handle<Expr>) -> Vec<Term> {
    let split = Split {
        through_lets: false,
        literal_factors: true,
    };
    let terms = additive_terms(func, ranges, index, split, &mut |_| false);
    let unrolled = unrolled_loop_variables(func);
    let (offsets, rows): (Vec<Term>, Vec<Term>) = terms
        .into_iter()
        .partition(|t| constant_given(func, ranges, t.expr, &unrolled));
    rows.into_iter().chain(offsets).collect()
}

/// The lowest virtual architecture each instruction needs (`compute_80`: `mma.sync`
/// of these shapes, `ldmatrix`, `cvt.rna.tf32`; `compute_90`: `stmatrix`).
pub const MMA_MIN_ARCH: u32 = 80;
pub const STMATRIX_MIN_ARCH: u32 = 90;

#[cfg(test)]
mod tests;
mod window;
