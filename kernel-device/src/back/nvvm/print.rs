//! Print statements in NVVM IR: a thread appends one record to the launch's print
//! buffer in the layout [`crate::ir::format::record`] defines, and the host formats
//! it. The buffer's device address is in the module global [`PRINT_BUFFER_SYMBOL`],
//! which exists only in modules that print and which the host sets once at load: a
//! kernel that does not print has no extra parameter and no extra instruction.
//!
//! One record: `atomicAdd` of its size on the header's cursor; if it ends within the
//! capacity, stores of the record header and of each argument at its layout offset;
//! otherwise an `atomicAdd` on the dropped count and an `atomicMin` on the first
//! dropped offset (never a store out of bounds). A failed `assert!`/`panic!` without
//! arguments is an ordinary panic site with its rendered message; one with arguments
//! appends its record, then panics at a site whose message names the format
//! ([`formatted_panic_message`]), and the host renders the message from that record.

use super::state::{FunctionWriter, Val};
use super::{types, Error};
use crate::ir::format::record::{
    RecordLayout, BUFFER_HEADER_BYTES, CAPACITY_OFFSET, DROPPED_OFFSET, FIRST_DROPPED_OFFSET,
    RECORD_HEADER_BYTES,
};
use crate::ir::{PrintKind, PrintStmt, ScalarType, Type};

/// The module global holding the print buffer's device address (0: none, prints are
/// skipped).
pub const PRINT_BUFFER_SYMBOL: &str = "__cudajit_print_buffer";

/// The panic-site message of a failed `assert!`/`panic!` whose message has arguments:
/// the host replaces it by the rendered record of `format` from the same thread.
pub fn formatted_panic_message(format: u32) -> String {
    format!("{FORMATTED_PANIC_PREFIX}{format}")
}

/// Starts every [`formatted_panic_message`] (a NUL: no user text begins with it).
pub const FORMATTED_PANIC_PREFIX: &str = "\u{0}cudajit print format ";

/// The definition of [`PRINT_BUFFER_SYMBOL`], for a module that prints.
pub fn global_definition() -> String {
    format!(
        "; the host stores here the device address of the print buffer (see cudajit's ir::format::record)\n\
         @{PRINT_BUFFER_SYMBOL} = addrspace(1) externally_initialized global i64 0, align 8\n"
    )
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    pub(super) fn print_stmt(&mut self, print: &'a PrintStmt) -> Result<(), Error> {
        let mut values = Vec::with_capacity(print.args.len());
        for arg in &print.args {
            match self.expr(*arg)? {
                Val::V(v) => values.push(v),
                Val::Never => return Ok(()),
                Val::Unit => return Err(self.error("a print argument has no value")),
            }
        }
        let format = self
            .w
            .module
            .prints
            .formats
            .get(print.format as usize)
            .ok_or_else(|| self.error(format!("print format {} is missing", print.format)))?;
        if print.kind == PrintKind::Panic && values.is_empty() {
            let message = crate::ir::format::render(&format.program, &[])
                .map_err(|e| self.error(e.to_string()))?;
            self.panic_now_at(print.loc, &message, ("0", "0"));
            return Ok(());
        }
        let types = format.argument_types.clone();
        self.append_record(print.format, &types, &values)?;
        if print.kind == PrintKind::Panic {
            let message = formatted_panic_message(print.format);
            self.panic_now_at(print.loc, &message, ("0", "0"));
        }
        Ok(())
    }

    fn append_record(
        &mut self,
        format: u32,
        types: &[Type],
        values: &[String],
    ) -> Result<(), Error> {
        let layout = RecordLayout::new(types)
            .ok_or_else(|| self.error("a print argument has no memory layout"))?;
        let size = layout.record_bytes();
        let buffer = self.def(
            "print.buffer",
            format!("load i64, i64 addrspace(1)* @{PRINT_BUFFER_SYMBOL}, align 8"),
        );
        let has_buffer = self.def("print.has", format!("icmp ne i64 {buffer}, 0"));
        let reserve_l = self.label("print.reserve");
        let write_l = self.label("print.write");
        let drop_l = self.label("print.drop");
        let done_l = self.label("print.done");
        self.terminate(format!(
            "br i1 {has_buffer}, label %{reserve_l}, label %{done_l}"
        ));
        self.start_block(&reserve_l);
        let header = self.def("print.header", format!("inttoptr i64 {buffer} to i64*"));
        let offset = self.def(
            "print.offset",
            format!("atomicrmw add i64* {header}, i64 {size} monotonic"),
        );
        let capacity_ptr = self.header_field(&header, CAPACITY_OFFSET);
        let capacity = self.def("print.capacity", format!("load i64, i64* {capacity_ptr}"));
        let end = self.def("print.end", format!("add i64 {offset}, {size}"));
        let fits = self.def("print.fits", format!("icmp ule i64 {end}, {capacity}"));
        self.terminate(format!("br i1 {fits}, label %{write_l}, label %{drop_l}"));

        self.start_block(&drop_l);
        let dropped_ptr = self.header_field(&header, DROPPED_OFFSET);
        self.def(
            "print.dropped",
            format!("atomicrmw add i64* {dropped_ptr}, i64 1 monotonic"),
        );
        let first_ptr = self.header_field(&header, FIRST_DROPPED_OFFSET);
        self.def(
            "print.first",
            format!("atomicrmw umin i64* {first_ptr}, i64 {offset} monotonic"),
        );
        self.terminate(format!("br label %{done_l}"));

        self.start_block(&write_l);
        let bytes = self.def("print.bytes", format!("inttoptr i64 {buffer} to i8*"));
        let start = self.def(
            "print.start",
            format!("add i64 {offset}, {BUFFER_HEADER_BYTES}"),
        );
        let record = self.def(
            "print.record",
            format!("getelementptr i8, i8* {bytes}, i64 {start}"),
        );
        let block = self.linear_index(["ctaid", "nctaid"]);
        let block = self.def("print.block64", format!("zext i32 {block} to i64"));
        let thread = self.linear_index(["tid", "ntid"]);
        let fields: [(u64, &str, String); 5] = [
            (0, "i32", format.to_string()),
            (4, "i32", layout.payload_len.to_string()),
            (8, "i64", block),
            (16, "i32", thread),
            (20, "i32", "0".to_string()),
        ];
        for (at, ty, v) in fields {
            let ptr = self.byte_ptr(&record, at, ty);
            self.store(ty, &v, &ptr);
        }
        for ((ty, value), at) in types.iter().zip(values).zip(&layout.offsets) {
            let llvm_ty = types::memory(ty).map_err(|e| self.error(e.0))?;
            let value = match ty {
                Type::Scalar(ScalarType::Bool) => self.value_to_memory(ScalarType::Bool, value),
                _ => value.clone(),
            };
            let ptr = self.byte_ptr(
                &record,
                RECORD_HEADER_BYTES as u64 + u64::from(*at),
                &llvm_ty,
            );
            self.store(&llvm_ty, &value, &ptr);
        }
        self.terminate(format!("br label %{done_l}"));
        self.start_block(&done_l);
        Ok(())
    }

    /// A pointer to the `i64` header field at byte `at`.
    fn header_field(&mut self, header: &str, at: usize) -> String {
        self.def(
            "print.field",
            format!("getelementptr i64, i64* {header}, i64 {}", at / 8),
        )
    }

    /// `base + at` as a `ty*`.
    fn byte_ptr(&mut self, base: &str, at: u64, ty: &str) -> String {
        let p = self.def(
            "print.at",
            format!("getelementptr i8, i8* {base}, i64 {at}"),
        );
        self.def("print.ptr", format!("bitcast i8* {p} to {ty}*"))
    }

    /// `idx.x + idx.y * dim.x + idx.z * dim.x * dim.y` (i32) for `[idx, dim]` special
    /// registers (`["tid", "ntid"]`, `["ctaid", "nctaid"]`).
    fn linear_index(&mut self, [idx, dim]: [&str; 2]) -> String {
        let x = self.sreg(&format!("{idx}.x"));
        let y = self.sreg(&format!("{idx}.y"));
        let z = self.sreg(&format!("{idx}.z"));
        let dx = self.sreg(&format!("{dim}.x"));
        let dy = self.sreg(&format!("{dim}.y"));
        let plane = self.def("print.plane", format!("mul i32 {dx}, {dy}"));
        let zterm = self.def("print.z", format!("mul i32 {z}, {plane}"));
        let yterm = self.def("print.y", format!("mul i32 {y}, {dx}"));
        let xy = self.def("print.xy", format!("add i32 {x}, {yterm}"));
        self.def("print.linear", format!("add i32 {xy}, {zterm}"))
    }
}
