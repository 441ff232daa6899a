//! Type inference table: inference variables with union-find, rustc-style numeric
//! variables (`{integer}`, `{float}`) and the defaulting rules (`i32`, `f64`).
//!
//! The frontend gives every expression an [`Ty`] while it lowers, unifying as it goes
//! (so method lookup sees types known so far, exactly like rustc's in-order checking),
//! then [`Table::to_ir`] turns each into a concrete `ir::Type` at the end.

use crate::ir::{AddressSpace, ScalarType, StructDef, Type};
use std::sync::Arc;

/// An inference-time type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Var(u32),
    Unit,
    Never,
    /// The type of an expression that already produced a diagnostic: unifies with
    /// everything so one mistake gives one error.
    Error,
    Scalar(ScalarType),
    Slice {
        elem: ScalarType,
        mutable: bool,
    },
    Tuple(Vec<Ty>),
    /// `dynamic_shared()`'s cursor.
    DynamicShared,
    /// `[elem; len]`; `len` is `None` only at macro time, when it names a crate
    /// `const` whose value rustc knows but the macro does not (unifies with any length).
    Array {
        elem: Box<Ty>,
        len: Option<u64>,
    },
    /// `&[T; N]` / `&mut [T; N]`; `space` is `None` where the type is written
    /// (`let t: &mut [f32; 8] = shared_array();`) and taken from the value.
    Ref {
        pointee: Box<Ty>,
        mutable: bool,
        space: Option<AddressSpace>,
    },
    /// A `#[derive(DeviceCopy)]` struct.
    Struct(StructTy),
    /// `&[S]` / `&mut [S]` of a struct `S`.
    StructSlice {
        elem: StructTy,
        mutable: bool,
    },
    // Hopper: TMA
    /// `&TensorMap<T, N>` or (`writable`) `&TensorMapMut<T, N>` (a kernel parameter).
    TensorMap {
        elem: ScalarType,
        rank: u8,
        writable: bool,
    },
}

/// A struct type during inference: its name, and its fields except at macro time,
/// when the macro knows the name but not the fields (field types are then opaque).
#[derive(Clone, Debug, PartialEq)]
pub struct StructTy {
    pub name: String,
    pub def: Option<Arc<StructDef>>,
}

impl StructTy {
    pub fn known(def: &Arc<StructDef>) -> StructTy {
        StructTy {
            name: def.name.clone(),
            def: Some(def.clone()),
        }
    }
}

impl Ty {
    pub fn array(elem: Ty, len: Option<u64>) -> Ty {
        Ty::Array {
            elem: Box::new(elem),
            len,
        }
    }

    pub const USIZE: Ty = Ty::Scalar(ScalarType::Usize);
    pub const BOOL: Ty = Ty::Scalar(ScalarType::Bool);
    pub const U32: Ty = Ty::Scalar(ScalarType::U32);
}

/// What an unbound variable may become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// Anything (a `let x;` or a loop's break value).
    General,
    /// The result of a call whose signature is unknown (macro-time check of one item):
    /// anything, and never an error when left unresolved.
    Opaque,
    /// `{integer}`: an unsuffixed integer literal.
    Int,
    /// `{float}`: an unsuffixed float literal.
    Float,
}

#[derive(Clone, Debug)]
struct Slot {
    parent: u32,
    kind: VarKind,
    /// Bound value; never a `Ty::Var` (variables are merged by `parent` instead).
    value: Option<Ty>,
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    slots: Vec<Slot>,
}

impl Table {
    pub fn new_var(&mut self, kind: VarKind) -> Ty {
        let id = self.slots.len() as u32;
        self.slots.push(Slot {
            parent: id,
            kind,
            value: None,
        });
        Ty::Var(id)
    }

    fn find(&mut self, var: u32) -> u32 {
        let mut root = var;
        // Bounded by the number of slots; ids always come from `new_var`.
        while let Some(slot) = self.slots.get(root as usize) {
            if slot.parent == root {
                break;
            }
            root = slot.parent;
        }
        let mut cur = var;
        while cur != root {
            let Some(slot) = self.slots.get_mut(cur as usize) else {
                break;
            };
            let next = slot.parent;
            slot.parent = root;
            cur = next;
        }
        root
    }

    /// The kind of an unbound variable's root (None for non-variables or bound ones).
    pub fn var_kind(&mut self, ty: &Ty) -> Option<VarKind> {
        match self.shallow(ty) {
            Ty::Var(v) => self.slots.get(v as usize).map(|s| s.kind),
            _ => None,
        }
    }

    /// Follows variable bindings at the top level only.
    pub fn shallow(&mut self, ty: &Ty) -> Ty {
        match ty {
            Ty::Var(v) => {
                let root = self.find(*v);
                match self.slots.get(root as usize).and_then(|s| s.value.clone()) {
                    Some(value) => value,
                    None => Ty::Var(root),
                }
            }
            other => other.clone(),
        }
    }

    fn occurs(&mut self, var: u32, ty: &Ty) -> bool {
        match self.shallow(ty) {
            Ty::Var(v) => v == var,
            Ty::Tuple(items) => items.iter().any(|t| self.occurs(var, t)),
            Ty::Array { elem, .. } => self.occurs(var, &elem),
            Ty::Ref { pointee, .. } => self.occurs(var, &pointee),
            _ => false,
        }
    }

    /// Makes `a` and `b` the same type. `Never` and `Error` are compatible with
    /// everything (diverging expressions coerce; errors are already reported).
    pub fn unify(&mut self, a: &Ty, b: &Ty) -> Result<(), ()> {
        let a = self.shallow(a);
        let b = self.shallow(b);
        match (&a, &b) {
            (Ty::Error, _) | (_, Ty::Error) | (Ty::Never, _) | (_, Ty::Never) => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => {
                if x == y {
                    return Ok(());
                }
                let kx = self.slots[*x as usize].kind;
                let ky = self.slots[*y as usize].kind;
                let kind = merge_kinds(kx, ky).ok_or(())?;
                self.slots[*y as usize].parent = *x;
                self.slots[*x as usize].kind = kind;
                Ok(())
            }
            (Ty::Var(x), t) | (t, Ty::Var(x)) => {
                let kind = self.slots[*x as usize].kind;
                let fits = match kind {
                    VarKind::General | VarKind::Opaque => !self.occurs(*x, t),
                    VarKind::Int => matches!(t, Ty::Scalar(s) if s.is_integer()),
                    VarKind::Float => matches!(t, Ty::Scalar(s) if s.is_float() && !s.is_half()),
                };
                if !fits {
                    return Err(());
                }
                self.slots[*x as usize].value = Some(t.clone());
                Ok(())
            }
            (Ty::Unit, Ty::Unit) | (Ty::DynamicShared, Ty::DynamicShared) => Ok(()),
            // Hopper: TMA
            (
                Ty::TensorMap {
                    elem: e1,
                    rank: r1,
                    writable: w1,
                },
                Ty::TensorMap {
                    elem: e2,
                    rank: r2,
                    writable: w2,
                },
            ) if e1 == e2 && r1 == r2 && w1 == w2 => Ok(()),
            (Ty::Struct(s1), Ty::Struct(s2)) if s1.name == s2.name => Ok(()),
            // Macro time, in a `#[device]` method: `Self` is a struct the macro knows
            // by no other name (rustc checks the method's twin).
            (Ty::Struct(s1), Ty::Struct(s2))
                if s1.def.is_none()
                    && s2.def.is_none()
                    && (s1.name == "Self" || s2.name == "Self") =>
            {
                Ok(())
            }
            (
                Ty::StructSlice {
                    elem: e1,
                    mutable: m1,
                },
                Ty::StructSlice {
                    elem: e2,
                    mutable: m2,
                },
            ) if e1.name == e2.name && m1 == m2 => Ok(()),
            (Ty::Scalar(x), Ty::Scalar(y)) if x == y => Ok(()),
            (
                Ty::Slice {
                    elem: e1,
                    mutable: m1,
                },
                Ty::Slice {
                    elem: e2,
                    mutable: m2,
                },
            ) if e1 == e2 && m1 == m2 => Ok(()),
            (Ty::Tuple(xs), Ty::Tuple(ys)) if xs.len() == ys.len() => {
                let mut result = Ok(());
                for (x, y) in xs.iter().zip(ys.iter()) {
                    if self.unify(x, y).is_err() {
                        result = Err(());
                    }
                }
                result
            }
            (Ty::Array { elem: e1, len: l1 }, Ty::Array { elem: e2, len: l2 }) => {
                let lens = match (l1, l2) {
                    (Some(a), Some(b)) if a != b => Err(()),
                    _ => Ok(()),
                };
                self.unify(e1, e2).and(lens)
            }
            (
                Ty::Ref {
                    pointee: p1,
                    mutable: m1,
                    space: s1,
                },
                Ty::Ref {
                    pointee: p2,
                    mutable: m2,
                    space: s2,
                },
            ) => {
                let spaces = match (s1, s2) {
                    (Some(a), Some(b)) if a != b => Err(()),
                    _ => Ok(()),
                };
                let muts = if m1 == m2 { Ok(()) } else { Err(()) };
                self.unify(p1, p2).and(spaces).and(muts)
            }
            _ => Err(()),
        }
    }

    /// `actual` used where `expected` is wanted: unification plus Rust's coercions
    /// that matter here (`!` to anything, `&mut [T]` to `&[T]`).
    pub fn coerce(&mut self, actual: &Ty, expected: &Ty) -> Result<(), ()> {
        let a = self.shallow(actual);
        let e = self.shallow(expected);
        match (&a, &e) {
            (Ty::Never, _) => Ok(()),
            (
                Ty::Slice {
                    elem: e1,
                    mutable: true,
                },
                Ty::Slice {
                    elem: e2,
                    mutable: false,
                },
            ) if e1 == e2 => Ok(()),
            (
                Ty::StructSlice {
                    elem: e1,
                    mutable: true,
                },
                Ty::StructSlice {
                    elem: e2,
                    mutable: false,
                },
            ) if e1.name == e2.name => Ok(()),
            // A shared or local array to a device function's `&mut [[T; N]; M]`
            // parameter: a generic pointer takes any space (the call converts it).
            (
                Ty::Ref {
                    pointee: p1,
                    mutable: m1,
                    ..
                },
                Ty::Ref {
                    pointee: p2,
                    mutable: m2,
                    space: Some(AddressSpace::Generic),
                },
            ) if *m1 || !*m2 => self.unify(p1, p2),
            (
                Ty::Ref {
                    pointee: p1,
                    mutable: true,
                    space: s1,
                },
                Ty::Ref {
                    pointee: p2,
                    mutable: false,
                    space: s2,
                },
            ) => {
                if matches!((s1, s2), (Some(a), Some(b)) if a != b) {
                    return Err(());
                }
                self.unify(p1, p2)
            }
            _ => self.unify(&a, &e),
        }
    }

    pub fn is_never(&mut self, ty: &Ty) -> bool {
        matches!(self.shallow(ty), Ty::Never)
    }

    /// The final concrete type, applying rustc's defaults: `{integer}` → `i32`,
    /// `{float}` → `f64`; anything still unknown (only possible after an error or
    /// for results of unknown callees) becomes `()`.
    #[allow(clippy::wrong_self_convention)] // needs `&mut` for path compression
    pub fn to_ir(&mut self, ty: &Ty) -> Type {
        match self.shallow(ty) {
            Ty::Var(v) => match self.slots.get(v as usize).map(|s| s.kind) {
                Some(VarKind::Int) => Type::Scalar(ScalarType::I32),
                Some(VarKind::Float) => Type::Scalar(ScalarType::F64),
                _ => Type::Unit,
            },
            Ty::Unit | Ty::Error => Type::Unit,
            Ty::Never => Type::Never,
            Ty::Scalar(s) => Type::Scalar(s),
            Ty::Slice { elem, mutable } => Type::Slice { elem, mutable },
            Ty::Tuple(items) => Type::Tuple(items.iter().map(|t| self.to_ir(t)).collect()),
            Ty::DynamicShared => Type::DynamicShared,
            Ty::Array { elem, len } => Type::array(self.to_ir(&elem), len.unwrap_or(0)),
            Ty::Ref {
                pointee,
                mutable,
                space,
            } => Type::Ref {
                pointee: Box::new(self.to_ir(&pointee)),
                mutable,
                space: space.unwrap_or(AddressSpace::Generic),
            },
            Ty::Struct(StructTy { def: Some(def), .. }) => Type::Struct(def),
            Ty::StructSlice {
                elem: StructTy {
                    def: Some(elem), ..
                },
                mutable,
            } => Type::StructSlice { elem, mutable },
            // Macro time only: nothing is lowered to a backend then.
            Ty::Struct(_) | Ty::StructSlice { .. } => Type::Unit,
            // Hopper: TMA
            Ty::TensorMap {
                elem,
                rank,
                writable,
            } => Type::TensorMap {
                elem,
                rank,
                writable,
            },
        }
    }

    /// After defaulting: the scalar this type ends up as, if any.
    pub fn final_scalar(&mut self, ty: &Ty) -> Option<ScalarType> {
        match self.shallow(ty) {
            Ty::Error => None,
            Ty::Var(v) => match self.slots.get(v as usize).map(|s| s.kind) {
                Some(VarKind::Int) => Some(ScalarType::I32),
                Some(VarKind::Float) => Some(ScalarType::F64),
                _ => None,
            },
            Ty::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// How rustc prints a type in diagnostics: `f32`, `{integer}`, `{float}`, `_`.
    pub fn describe(&mut self, ty: &Ty) -> String {
        match self.shallow(ty) {
            Ty::Var(v) => match self.slots.get(v as usize).map(|s| s.kind) {
                Some(VarKind::Int) => "{integer}".into(),
                Some(VarKind::Float) => "{float}".into(),
                _ => "_".into(),
            },
            Ty::Unit => "()".into(),
            Ty::Never => "!".into(),
            Ty::Error => "{error}".into(),
            Ty::Scalar(s) => s.rust_name().into(),
            Ty::DynamicShared => "DynamicShared".into(),
            Ty::Slice { elem, mutable } => {
                format!("&{}[{elem}]", if mutable { "mut " } else { "" })
            }
            Ty::Tuple(items) => {
                let parts: Vec<String> = items.iter().map(|t| self.describe(t)).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            Ty::Array { elem, len } => {
                let e = self.describe(&elem);
                match len {
                    Some(n) => format!("[{e}; {n}]"),
                    None => format!("[{e}; _]"),
                }
            }
            Ty::Ref {
                pointee, mutable, ..
            } => {
                let p = self.describe(&pointee);
                format!("&{}{p}", if mutable { "mut " } else { "" })
            }
            Ty::Struct(s) => s.name,
            Ty::StructSlice { elem, mutable } => {
                format!("&{}[{}]", if mutable { "mut " } else { "" }, elem.name)
            }
            // Hopper: TMA
            Ty::TensorMap {
                elem,
                rank,
                writable,
            } => format!("&{}<{elem}, {rank}>", crate::ir::map_type_name(writable)),
        }
    }

    /// The "found ..." part of rustc's mismatched-types message: `` `f32` ``,
    /// `integer`, `floating-point number`.
    pub fn describe_found(&mut self, ty: &Ty) -> String {
        match self.var_kind(ty) {
            Some(VarKind::Int) => "integer".into(),
            Some(VarKind::Float) => "floating-point number".into(),
            _ => format!("`{}`", self.describe(ty)),
        }
    }

    /// Whether the type contains an error or an unresolved opaque result (then no
    /// further diagnostic should be reported about it).
    /// Macro time: a named type the macro knows by name only (a struct or a
    /// `#[derive(DeviceCopy)]` enum, which is its repr integer at run time): its
    /// operators and casts are left to rustc's check of the twin.
    pub fn is_unknown_named(&mut self, ty: &Ty) -> bool {
        matches!(self.shallow(ty), Ty::Struct(StructTy { def: None, .. }))
    }

    pub fn is_suppressed(&mut self, ty: &Ty) -> bool {
        match self.shallow(ty) {
            Ty::Error => true,
            Ty::Var(v) => matches!(
                self.slots.get(v as usize).map(|s| s.kind),
                Some(VarKind::Opaque)
            ),
            Ty::Tuple(items) => items.iter().any(|t| self.is_suppressed(t)),
            Ty::Array { elem, .. } => self.is_suppressed(&elem),
            Ty::Ref { pointee, .. } => self.is_suppressed(&pointee),
            _ => false,
        }
    }
}

fn merge_kinds(a: VarKind, b: VarKind) -> Option<VarKind> {
    use VarKind::*;
    match (a, b) {
        (General, k) | (k, General) => Some(k),
        // An unknown callee's result stays unknown when mixed with a literal: in
        // `(g(a) + 1).min(3)` the literal takes `g`'s return type, which only the
        // callee's signature (checked by rustc in the twin) knows; `{integer}` would
        // wrongly make the method call ambiguous.
        (Opaque, _) | (_, Opaque) => Some(Opaque),
        (Int, Int) => Some(Int),
        (Float, Float) => Some(Float),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_var_defaults_to_i32_and_binds_to_integers() {
        let mut t = Table::default();
        let a = t.new_var(VarKind::Int);
        assert_eq!(t.to_ir(&a), Type::Scalar(ScalarType::I32));
        let b = t.new_var(VarKind::Int);
        t.unify(&a, &b).unwrap();
        t.unify(&b, &Ty::Scalar(ScalarType::U64)).unwrap();
        assert_eq!(t.to_ir(&a), Type::Scalar(ScalarType::U64));
        assert!(t.unify(&a, &Ty::Scalar(ScalarType::F32)).is_err());
    }

    #[test]
    fn float_var_rejects_int_var() {
        let mut t = Table::default();
        let a = t.new_var(VarKind::Int);
        let f = t.new_var(VarKind::Float);
        assert!(t.unify(&a, &f).is_err());
        assert_eq!(t.describe(&f), "{float}");
        assert_eq!(t.to_ir(&f), Type::Scalar(ScalarType::F64));
    }

    #[test]
    fn occurs_check_prevents_cycles() {
        let mut t = Table::default();
        let a = t.new_var(VarKind::General);
        assert!(t.unify(&a, &Ty::Tuple(vec![a.clone()])).is_err());
    }

    #[test]
    fn coerce_mut_slice_to_shared() {
        let mut t = Table::default();
        let m = Ty::Slice {
            elem: ScalarType::F32,
            mutable: true,
        };
        let s = Ty::Slice {
            elem: ScalarType::F32,
            mutable: false,
        };
        assert!(t.coerce(&m, &s).is_ok());
        assert!(t.coerce(&s, &m).is_err());
        assert!(t.coerce(&Ty::Never, &s).is_ok());
    }
}
