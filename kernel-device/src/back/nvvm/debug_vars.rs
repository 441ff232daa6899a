//! Rust locals and parameters by name for cuda-gdb (`info locals`, `print i`), at
//! [`DebugLevel::Full`] only: each named local's stack slot gets an
//! `llvm.dbg.declare` with a `DILocalVariable` and a DWARF type of its Rust type
//! (scalars, slices as `{data_ptr, length}`, arrays, references as pointers).
//!
//! The stores to those slots are volatile: libnvvm promotes even `-opt=0` slots to
//! registers and then describes the value only over part of its line range (cuda-gdb
//! printed `<optimized out>` at the breakpoint), while a slot kept in local memory is
//! readable wherever the variable is in scope. Debug code is unoptimised anyway.

use std::fmt::Write as _;

use crate::ir::{self, Handle, Local, ScalarType, Type};

use super::debug_info::{DebugLevel, DebugMetadata};
use super::state::FunctionWriter;

impl DebugMetadata {
    /// The DWARF type of `ty`, or `None` for a type cuda-gdb is not shown (unit,
    /// tuples, shared-memory cursors).
    fn type_node(&mut self, ty: &Type) -> Option<u32> {
        let key = ty.to_string();
        if let Some(id) = self.types.get(&key) {
            return Some(*id);
        }
        let text = match ty {
            Type::Scalar(s) => scalar_node(*s),
            Type::Slice { elem, .. } => self.slice_node(&key, &Type::Scalar(*elem))?,
            Type::StructSlice { elem, .. } => self.slice_node(&key, &Type::Struct(elem.clone()))?,
            Type::Array { elem, len } => {
                let elem_node = self.type_node(elem)?;
                let range = self.node(format!("!DISubrange(count: {len})"));
                let ranges = self.node(format!("!{{!{range}}}"));
                let bits = type_bits(ty)?;
                format!(
                    "!DICompositeType(tag: DW_TAG_array_type, baseType: !{elem_node}, \
                     size: {bits}, elements: !{ranges})"
                )
            }
            Type::Ref { pointee, .. } => {
                let pointee = self.type_node(pointee)?;
                format!(
                    "!DIDerivedType(tag: DW_TAG_pointer_type, name: \"{}\", baseType: !{pointee}, size: 64)",
                    escape(&key)
                )
            }
            Type::Struct(def) => {
                let offsets = def.offsets()?;
                let mut members = Vec::new();
                for (field, offset) in def.fields.iter().zip(offsets) {
                    let field_node = self.type_node(&field.ty)?;
                    members.push(self.node(format!(
                        "!DIDerivedType(tag: DW_TAG_member, name: \"{}\", baseType: !{field_node}, \
                         size: {}, offset: {})",
                        escape(&field.name),
                        type_bits(&field.ty)?,
                        offset * 8
                    )));
                }
                let list = members.iter().map(|m| format!("!{m}")).collect::<Vec<_>>();
                let elements = self.node(format!("!{{{}}}", list.join(", ")));
                format!(
                    "!DICompositeType(tag: DW_TAG_structure_type, name: \"{}\", size: {}, elements: !{elements})",
                    escape(&def.name),
                    type_bits(ty)?
                )
            }
            Type::Unit | Type::Never | Type::Tuple(_) | Type::DynamicShared => return None,
            // Hopper: TMA: opaque to a debugger.
            Type::TensorMap { .. } => return None,
        };
        let id = self.node(text);
        self.types.insert(key, id);
        Some(id)
    }

    /// `&[T]` as the pair it is: `{data_ptr: *T, length: usize}`.
    fn slice_node(&mut self, name: &str, elem: &Type) -> Option<String> {
        let elem_node = self.type_node(elem)?;
        let pointer = self.node(format!(
            "!DIDerivedType(tag: DW_TAG_pointer_type, baseType: !{elem_node}, size: 64)"
        ));
        let length = self.type_node(&Type::Scalar(ScalarType::Usize))?;
        let data = self.node(format!(
            "!DIDerivedType(tag: DW_TAG_member, name: \"data_ptr\", baseType: !{pointer}, size: 64)"
        ));
        let len = self.node(format!(
            "!DIDerivedType(tag: DW_TAG_member, name: \"length\", baseType: !{length}, size: 64, offset: 64)"
        ));
        let elements = self.node(format!("!{{!{data}, !{len}}}"));
        Some(format!(
            "!DICompositeType(tag: DW_TAG_structure_type, name: \"{}\", size: 128, elements: !{elements})",
            escape(name)
        ))
    }

    /// A `DILocalVariable` for `name` of `ty` (parameter `arg`, 1-based, if any), or
    /// `None` when its type has no DWARF form here.
    pub(super) fn local_variable(
        &mut self,
        scope: u32,
        file: &str,
        name: &str,
        arg: Option<usize>,
        line: u32,
        ty: &Type,
    ) -> Option<u32> {
        let ty = self.type_node(ty)?;
        let file = self.file(file);
        let arg = arg.map(|a| format!("arg: {a}, ")).unwrap_or_default();
        Some(self.node(format!(
            "!DILocalVariable(name: \"{}\", {arg}scope: !{scope}, file: !{file}, line: {line}, type: !{ty})",
            escape(name)
        )))
    }
}

fn scalar_node(s: ScalarType) -> String {
    let encoding = match s {
        ScalarType::Bool => "DW_ATE_boolean",
        s if s.is_float() => "DW_ATE_float",
        s if s.is_signed_integer() => "DW_ATE_signed",
        _ => "DW_ATE_unsigned",
    };
    format!(
        "!DIBasicType(name: \"{}\", size: {}, encoding: {encoding})",
        s.rust_name(),
        s.size_bytes() * 8
    )
}

/// Size in bits of `ty` in memory (what its slot holds).
fn type_bits(ty: &Type) -> Option<u64> {
    match ty {
        Type::Slice { .. } | Type::StructSlice { .. } => Some(128),
        Type::Ref { .. } => Some(64),
        other => crate::ir::layout::layout(other).map(|l| l.size * 8),
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\5C").replace('"', "\\22")
}

/// Whether `name` is one a person wrote (not a compiler temporary).
fn is_source_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with("__")
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Describes `local`'s slot `ptr` (of LLVM type `llvm_ty`) to the debugger, at
    /// full debug information; nothing otherwise.
    pub(super) fn describe_local(
        &mut self,
        handle: Handle<Local>,
        local: &ir::Local,
        ptr: &str,
        llvm_ty: &str,
    ) {
        let Some(d) = self.dbg else { return };
        if d.level != DebugLevel::Full || !is_source_name(&local.name) {
            return;
        }
        let arg = self
            .func
            .params
            .iter()
            .position(|p| p.local == handle)
            .map(|i| i + 1);
        let line = if local.loc.line != 0 {
            local.loc.line
        } else {
            self.func.loc.line
        };
        let file = self.func.file.clone();
        let debug = &mut self.w.debug;
        let Some(variable) =
            debug.local_variable(d.subprogram, &file, &local.name, arg, line, &local.ty)
        else {
            return;
        };
        let at = debug.location(d.subprogram, ir::SourceLoc { line, ..local.loc });
        debug.keep_in_memory(d.subprogram, ptr);
        self.w.declare(
            "llvm.dbg.declare",
            "declare void @llvm.dbg.declare(metadata, metadata, metadata)".into(),
        );
        let _ = writeln!(
            self.allocas,
            "  call void @llvm.dbg.declare(metadata {llvm_ty}* {ptr}, metadata !{variable}, \
             metadata !DIExpression()), !dbg !{at}"
        );
    }

    /// `volatile ` for a store to a slot the debugger reads (see the module's text).
    pub(super) fn store_qualifier(&self, ptr: &str) -> &'static str {
        match self.dbg {
            Some(d) if self.w.debug.kept_in_memory(d.subprogram, ptr) => "volatile ",
            _ => "",
        }
    }
}
