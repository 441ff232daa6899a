//! Validator: the rules the IR must obey before code generation, one error variant per
//! rule (as naga's `valid`). The frontend should never produce IR that fails here; the
//! validator exists so that a frontend bug becomes a clear error instead of invalid NVVM
//! IR, and so other producers of IR (tests, a future simulator) are held to the same rules.

mod recursion;
mod types;

use crate::ir::{self, SourceLoc, Type};

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValidationError {
    /// Direct or mutual recursion: GPU stacks are tiny and NVVM cannot bound them.
    #[error("in `{function}`: recursion is not supported on the GPU (call cycle: {})", cycle.join(" -> "))]
    Recursion {
        function: String,
        cycle: Vec<String>,
    },
    #[error("in `{function}`: a kernel must return `()`, found `{ty}`")]
    KernelReturnsValue { function: String, ty: Type },
    #[error(
        "in `{function}`: parameter `{param}` has type `{ty}`, which cannot be passed to {what}"
    )]
    ParamType {
        function: String,
        param: String,
        ty: Type,
        what: &'static str,
    },
    #[error("in `{function}`: a device function cannot return `{ty}`")]
    ReturnType { function: String, ty: Type },
    /// A handle that points outside its arena.
    #[error("in `{function}`: invalid {what} handle {index}")]
    InvalidHandle {
        function: String,
        what: &'static str,
        index: usize,
    },
    /// An operator applied to operand types it does not accept, or a result type that
    /// does not follow from the operands.
    #[error("in `{function}` at {}:{}: {detail}", loc.line, loc.column)]
    Operator {
        function: String,
        loc: SourceLoc,
        detail: String,
    },
    #[error("in `{function}` at {}:{}: {detail}", loc.line, loc.column)]
    Cast {
        function: String,
        loc: SourceLoc,
        detail: String,
    },
    /// Slice indexing: the base must be a slice, the index `usize`.
    #[error("in `{function}` at {}:{}: {detail}", loc.line, loc.column)]
    Index {
        function: String,
        loc: SourceLoc,
        detail: String,
    },
    #[error("in `{function}` at {}:{}: {detail}", loc.line, loc.column)]
    Call {
        function: String,
        loc: SourceLoc,
        detail: String,
    },
    #[error("in `{function}` at {}:{}: {detail}", loc.line, loc.column)]
    Intrinsic {
        function: String,
        loc: SourceLoc,
        detail: String,
    },
    /// A value whose type differs from the one its position requires (let, assignment,
    /// condition, branch, block, tuple, field, return).
    #[error("in `{function}` at {}:{}: {detail}", loc.line, loc.column)]
    TypeMismatch {
        function: String,
        loc: SourceLoc,
        detail: String,
    },
    /// `break`/`continue` naming no enclosing loop, or a `break` value out of a non-`loop`.
    #[error("in `{function}` at {}:{}: {detail}", loc.line, loc.column)]
    LoopTarget {
        function: String,
        loc: SourceLoc,
        detail: String,
    },
    /// `take` on something other than a `let mut` cursor, or of the wrong type.
    #[error("in `{function}` at {}:{}: {detail}", loc.line, loc.column)]
    DynamicShared {
        function: String,
        loc: SourceLoc,
        detail: String,
    },
    /// A module global that is not an array of scalars, or whose initialiser does not
    /// fit its address space (shared: none; constant: a value of its type).
    #[error("global `{name}`: {detail}")]
    Global { name: String, detail: String },
    /// Assignment through a shared slice.
    #[error("in `{function}` at {}:{}: cannot assign through an immutable slice", loc.line, loc.column)]
    ImmutablePlace { function: String, loc: SourceLoc },
}

impl ValidationError {
    /// The function the error is in.
    pub fn function(&self) -> &str {
        match self {
            ValidationError::Recursion { function, .. }
            | ValidationError::KernelReturnsValue { function, .. }
            | ValidationError::ParamType { function, .. }
            | ValidationError::ReturnType { function, .. }
            | ValidationError::InvalidHandle { function, .. }
            | ValidationError::Operator { function, .. }
            | ValidationError::Cast { function, .. }
            | ValidationError::Index { function, .. }
            | ValidationError::Call { function, .. }
            | ValidationError::Intrinsic { function, .. }
            | ValidationError::TypeMismatch { function, .. }
            | ValidationError::LoopTarget { function, .. }
            | ValidationError::DynamicShared { function, .. }
            | ValidationError::ImmutablePlace { function, .. } => function,
            ValidationError::Global { name, .. } => name,
        }
    }

    /// The full message (same as `Display`).
    pub fn message(&self) -> String {
        self.to_string()
    }
}

/// Checks every rule; returns all violations.
pub fn validate(module: &ir::Module) -> Result<(), Vec<ValidationError>> {
    let mut errors = Vec::new();
    recursion::check(module, &mut errors);
    for (_, global) in module.globals.iter() {
        check_global(global, &mut errors);
    }
    for (_, function) in module.functions.iter() {
        check_signature(function, &mut errors);
        types::check_function(module, function, &mut errors);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn check_signature(f: &ir::Function, errors: &mut Vec<ValidationError>) {
    let kernel = f.kind == ir::FunctionKind::Kernel;
    if kernel && f.ret != Type::Unit {
        errors.push(ValidationError::KernelReturnsValue {
            function: f.name.clone(),
            ty: f.ret.clone(),
        });
    }
    if !kernel && !returnable(&f.ret) {
        errors.push(ValidationError::ReturnType {
            function: f.name.clone(),
            ty: f.ret.clone(),
        });
    }
    for p in &f.params {
        let ok = match &p.ty {
            Type::Scalar(_) | Type::Slice { .. } | Type::StructSlice { .. } => true,
            Type::Struct(_) => true,
            // Tuples travel by value between device functions.
            tuple @ Type::Tuple(_) => !kernel && returnable(tuple),
            // Arrays travel by value between device functions, not from the host.
            array @ Type::Array { .. } => !kernel && array.array_scalar().is_some(),
            // A 2-D shared or local array by reference (`&mut [[f32; 33]; 4]`): a
            // generic pointer, converted at each call.
            Type::Ref {
                pointee,
                space: ir::AddressSpace::Generic,
                ..
            } => !kernel && pointee.array_scalar().is_some(),
            // Hopper: TMA: a map is a kernel's (`front::tma` rejects it elsewhere).
            Type::TensorMap { .. } => kernel,
            _ => false,
        };
        if !ok {
            errors.push(ValidationError::ParamType {
                function: f.name.clone(),
                param: p.name.clone(),
                ty: p.ty.clone(),
                what: if kernel {
                    "a kernel"
                } else {
                    "a device function"
                },
            });
        }
        match f.locals.get(p.local) {
            Some(local) if local.ty == p.ty => {}
            Some(_) => errors.push(ValidationError::TypeMismatch {
                function: f.name.clone(),
                loc: f.loc,
                detail: format!("parameter `{}` and its local have different types", p.name),
            }),
            None => errors.push(ValidationError::InvalidHandle {
                function: f.name.clone(),
                what: "local",
                index: p.local.index(),
            }),
        }
    }
}

/// Globals are arrays of scalars; constant memory is initialised with a value of its
/// type, shared memory is not initialised.
fn check_global(g: &ir::Global, errors: &mut Vec<ValidationError>) {
    let array = matches!(g.ty, Type::Array { .. }) && g.ty.array_scalar().is_some();
    let init_ok = match (&g.init, g.space) {
        (None, ir::AddressSpace::Shared) => true,
        (Some(v), ir::AddressSpace::Constant) => v.ty() == g.ty,
        _ => false,
    };
    if !array || !init_ok {
        errors.push(ValidationError::Global {
            name: g.name.clone(),
            detail: format!("a {:?} global of type `{}`", g.space, g.ty),
        });
    }
}

fn returnable(ty: &Type) -> bool {
    match ty {
        Type::Unit | Type::Scalar(_) => true,
        // Structs too: a `&mut self` method returns `(Self, R)`.
        Type::Tuple(items) => items.iter().all(|t| {
            matches!(t, Type::Scalar(_) | Type::Tuple(_) | Type::Struct(_)) && returnable(t)
        }),
        Type::Array { elem, .. } => returnable(elem) && !matches!(**elem, Type::Unit),
        Type::Struct(def) => def.fields.iter().all(|f| returnable(&f.ty)),
        Type::Never
        | Type::Slice { .. }
        | Type::StructSlice { .. }
        | Type::DynamicShared
        | Type::Ref { .. }
        // Hopper: TMA
        | Type::TensorMap { .. } => false,
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_slices;
