//! Type inference table: inference variables with union-find, rustc-style numeric
//! variables (`{integer}`, `{float}`) and the defaulting rules (`i32`, `f64`).
//!
//! The frontend gives every expression an [`Ty`] while it lowers, unifying as it goes
//! (so method lookup sees types known so far, exactly like rustc's in-order checking),
//! then [`Table::to_ir`] turns each into a concrete `ir::Type` at the end.

use crate::ir::{ScalarType, Type};

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
}

impl Ty {
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
                    VarKind::Float => matches!(t, Ty::Scalar(s) if s.is_float()),
                };
                if !fits {
                    return Err(());
                }
                self.slots[*x as usize].value = Some(t.clone());
                Ok(())
            }
            (Ty::Unit, Ty::Unit) | (Ty::DynamicShared, Ty::DynamicShared) => Ok(()),
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
    pub fn is_suppressed(&mut self, ty: &Ty) -> bool {
        match self.shallow(ty) {
            Ty::Error => true,
            Ty::Var(v) => matches!(
                self.slots.get(v as usize).map(|s| s.kind),
                Some(VarKind::Opaque)
            ),
            Ty::Tuple(items) => items.iter().any(|t| self.is_suppressed(t)),
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
