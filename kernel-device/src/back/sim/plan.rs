//! What the interpreter resolves once per launch, before any thread runs: where each
//! expression's value and each local lives in a warp's frame, the size of each
//! function's per-thread local memory, and each loop's state.
//!
//! A frame holds one 32-lane register (`[u64; 32]`) per *slot*. A value takes
//! [`slots`] slots: a scalar one, a slice two (pointer, length), a reference or a
//! dynamic shared memory cursor one, a tuple or an array by value the sum of its
//! parts. Locals of array type live in per-thread local memory instead (so they can be
//! indexed per lane and referenced), laid out as the device lays them out.

use std::collections::HashMap;

use crate::ir::{visit, ExprKind, Function, LoopId, Module, Stmt, StructDef, Type};

/// Where a local lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    /// Slots starting at this index.
    Reg(u32),
    /// This byte offset in the frame's local memory.
    Mem(u32),
}

/// A loop's runtime state: its index into the frame's break/continue masks, and (for
/// `ForRange`) three slots of per-lane iteration state; for `loop`, the slot of its
/// `break` value.
#[derive(Clone, Copy, Debug)]
pub struct LoopPlan {
    pub index: usize,
    pub state_slot: u32,
    /// A `loop` expression's slots, where `break value` puts the value.
    pub value_slot: u32,
}

#[derive(Debug)]
pub struct FnPlan {
    pub expr_slot: Vec<u32>,
    pub expr_width: Vec<u32>,
    pub local_home: Vec<Home>,
    pub loops: HashMap<u32, LoopPlan>,
    pub slots: u32,
    /// Local memory per thread for this function's frame.
    pub frame_bytes: u32,
    pub ret_slot: u32,
}

/// Register slots a value of `ty` takes.
pub fn slots(ty: &Type) -> u32 {
    match ty {
        Type::Unit | Type::Never => 0,
        Type::Scalar(_) | Type::Ref { .. } | Type::DynamicShared => 1,
        Type::Slice { .. } | Type::StructSlice { .. } => 2,
        // Hopper: TMA: the descriptor's address and the tile word (`proc::abi`).
        Type::TensorMap { .. } => 2,
        Type::Tuple(items) => items.iter().map(slots).sum(),
        Type::Array { elem, len } => slots(elem).saturating_mul(*len as u32),
        Type::Struct(def) => def.fields.iter().map(|f| slots(&f.ty)).sum(),
    }
}

/// Bytes a value of `ty` takes in memory (arrays of scalars, nested arrays, tuples),
/// and its alignment.
pub fn mem_layout(ty: &Type) -> (u64, u64) {
    match ty {
        Type::Scalar(s) => (u64::from(s.size_bytes()), u64::from(s.size_bytes())),
        Type::Array { elem, len } => {
            let (size, align) = mem_layout(elem);
            (size.saturating_mul(*len), align)
        }
        Type::Tuple(items) => {
            let (mut size, mut align) = (0u64, 1u64);
            for item in items {
                let (s, a) = mem_layout(item);
                size = size.div_ceil(a) * a + s;
                align = align.max(a);
            }
            (size.div_ceil(align) * align, align)
        }
        Type::Ref { .. } | Type::DynamicShared => (8, 8),
        Type::Slice { .. } | Type::StructSlice { .. } => (16, 8),
        // Hopper: TMA
        Type::TensorMap { .. } => (16, 8),
        Type::Unit | Type::Never => (0, 1),
        // The one `#[repr(C)]` layout the NVVM writer and the derive use.
        Type::Struct(_) => crate::ir::layout::layout(ty).map_or((0, 1), |l| (l.size, l.align)),
    }
}

/// The byte offset of field `index` of a tuple in memory.
pub fn field_offset(items: &[Type], index: u32) -> u64 {
    let mut offset = 0u64;
    for (k, item) in items.iter().enumerate() {
        let (s, a) = mem_layout(item);
        offset = offset.div_ceil(a) * a;
        if k as u32 == index {
            return offset;
        }
        offset += s;
    }
    offset
}

/// Field `index` of a struct: its type, its byte offset (`ir::layout`, the
/// `#[repr(C)]` layout the device uses) and its slot offset in registers.
pub fn struct_field(def: &StructDef, index: u32) -> Option<(Type, u64, u32)> {
    let field = def.fields.get(index as usize)?;
    let offset = *def.offsets()?.get(index as usize)?;
    let slot = def.fields[..index as usize]
        .iter()
        .map(|f| slots(&f.ty))
        .sum();
    Some((field.ty.clone(), offset, slot))
}

/// The slot offset of field `index` of a tuple held in registers.
pub fn field_slot(items: &[Type], index: u32) -> u32 {
    items[..index as usize].iter().map(slots).sum()
}

/// The largest register frame the simulator accepts (slots of 32 lanes × 8 bytes).
const MAX_SLOTS: u32 = 1 << 16;

pub fn plan_function(f: &Function) -> Result<FnPlan, String> {
    let mut next: u64 = 0;
    let mut take = |n: u32| -> u32 {
        let at = next as u32;
        next += u64::from(n);
        at
    };
    let mut expr_slot = Vec::with_capacity(f.exprs.len());
    let mut expr_width = Vec::with_capacity(f.exprs.len());
    for (_, e) in f.exprs.iter() {
        let w = slots(&e.ty);
        expr_width.push(w);
        expr_slot.push(take(w));
    }
    let mut frame_bytes = 0u64;
    let mut local_home = Vec::with_capacity(f.locals.len());
    for (_, l) in f.locals.iter() {
        if matches!(l.ty, Type::Array { .. }) {
            let (size, align) = mem_layout(&l.ty);
            let at = frame_bytes.div_ceil(align.max(1)) * align.max(1);
            frame_bytes = at + size;
            local_home.push(Home::Mem(at as u32));
        } else {
            local_home.push(Home::Reg(take(slots(&l.ty))));
        }
    }
    let ret_slot = take(slots(&f.ret));
    let mut loops = HashMap::new();
    let mut add_loop =
        |id: LoopId, state: u32, value_slot: u32, take: &mut dyn FnMut(u32) -> u32| {
            // The copies of a versioned loop share its id (and never run together).
            if loops.contains_key(&id.0) {
                return;
            }
            let index = loops.len();
            let state_slot = take(state);
            loops.insert(
                id.0,
                LoopPlan {
                    index,
                    state_slot,
                    value_slot,
                },
            );
        };
    for (h, e) in f.exprs.iter() {
        if let ExprKind::Loop { id, .. } = &e.kind {
            add_loop(*id, 0, expr_slot[h.index()], &mut take);
        }
    }
    visit::stmts_in_function(f, &mut |stmt| match stmt {
        Stmt::While { id, .. } => add_loop(*id, 0, 0, &mut take),
        Stmt::ForRange { id, .. } => add_loop(*id, 3, 0, &mut take),
        _ => {}
    });
    if next > u64::from(MAX_SLOTS) || frame_bytes > u64::from(u32::MAX / 64) {
        return Err(format!(
            "`{}` needs {next} value slots and {frame_bytes} bytes of local memory per thread, more than the simulator holds ({MAX_SLOTS} slots)",
            f.name
        ));
    }
    Ok(FnPlan {
        expr_slot,
        expr_width,
        local_home,
        loops,
        slots: next as u32,
        frame_bytes: frame_bytes as u32,
        ret_slot,
    })
}

/// Plans of every function of the module, indexed like `module.functions`.
pub fn plan_module(module: &Module) -> Result<Vec<FnPlan>, String> {
    module
        .functions
        .iter()
        .map(|(_, f)| plan_function(f))
        .collect()
}
