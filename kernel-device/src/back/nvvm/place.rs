//! Places: the address of a local, a global or a reference's pointee, then each
//! projection in turn (`getelementptr` into arrays and tuples, bounds-checked indexing
//! of arrays and slices), in the root's address space; loads, stores and `&place`.

use super::state::{FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{AddressSpace, Expr, Handle, Place, PlaceRoot, Projection, ScalarType, Type};

/// The address of a place: an operand of type `memory(ty) space*`.
#[derive(Clone, Debug)]
pub struct PlacePtr {
    pub ptr: String,
    pub ty: Type,
    pub space: AddressSpace,
    /// The place is an element of an array or slice: a `bool` there is an `i8`. (A
    /// `bool` local, or a tuple field in a local, holds an `i1`.)
    pub in_memory: bool,
}

/// Where a walk over a place's projections stands.
enum Cursor {
    Ptr(PlacePtr),
    /// The root is a slice value: the next projection indexes it.
    Slice {
        value: String,
        slice_ty: Type,
        elem: Type,
    },
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// The address of `place`, its projections evaluated and bounds-checked. `None` when
    /// evaluation diverged or the place has no storage (a unit local).
    pub fn place_ptr(&mut self, place: &'a Place) -> Result<Option<PlacePtr>, Error> {
        self.place_ptr_when(place, None)
    }

    /// [`Self::place_ptr`] whose bounds checks count only where `condition` (an `i1`)
    /// holds: the element of a load made under a predicated prefetch's condition.
    pub fn place_ptr_when(
        &mut self,
        place: &'a Place,
        condition: Option<&str>,
    ) -> Result<Option<PlacePtr>, Error> {
        let mut cursor = match place.root {
            PlaceRoot::Local(local) => {
                let ty = self.ir_local(local)?.ty.clone();
                match self.slot(local)? {
                    Some((addr, _)) => Cursor::Ptr(PlacePtr {
                        ptr: addr,
                        ty,
                        space: AddressSpace::Generic,
                        in_memory: false,
                    }),
                    None => return Ok(None),
                }
            }
            PlaceRoot::Global(g) => {
                let global = self
                    .w
                    .module
                    .globals
                    .get(g)
                    .ok_or_else(|| self.error("dangling global handle"))?;
                Cursor::Ptr(PlacePtr {
                    ptr: format!("@{}", types::ident(&global.name)),
                    ty: global.ty.clone(),
                    space: global.space,
                    in_memory: true,
                })
            }
            PlaceRoot::Pointee(h) => {
                let ty = self.ty_of(h)?.clone();
                let Val::V(v) = self.expr(h)? else {
                    return Ok(None);
                };
                match ty {
                    Type::Ref { pointee, space, .. } => Cursor::Ptr(PlacePtr {
                        ptr: v,
                        ty: *pointee,
                        space,
                        in_memory: true,
                    }),
                    slice @ (Type::Slice { .. } | Type::StructSlice { .. }) => Cursor::Slice {
                        value: v,
                        elem: slice.index_result().unwrap_or(Type::Unit),
                        slice_ty: slice,
                    },
                    other => return Err(self.error(format!("`{other}` points at nothing"))),
                }
            }
        };
        for projection in &place.projections {
            cursor = match (projection, cursor) {
                (
                    Projection::Index(index),
                    Cursor::Slice {
                        value,
                        slice_ty,
                        elem,
                    },
                ) => {
                    let Some(i) = self.index_operand(*index)? else {
                        return Ok(None);
                    };
                    let checked = self.func.options.bounds_check
                        && !self.func.unchecked_indices.contains(index);
                    let i = if checked {
                        self.with_known_range(*index, i)
                    } else {
                        i
                    };
                    let slice_ty = types::value(&slice_ty)?;
                    let mem = types::memory(&elem)?;
                    let base = self.def("ptr", format!("extractvalue {slice_ty} {value}, 0"));
                    if checked {
                        let len = self.def("len", format!("extractvalue {slice_ty} {value}, 1"));
                        self.bounds_check(&i, &len, place, condition)?;
                    }
                    let ptr = self.def(
                        "elem.ptr",
                        format!("getelementptr {mem}, {mem}* {base}, i64 {i}"),
                    );
                    Cursor::Ptr(PlacePtr {
                        ptr,
                        ty: elem,
                        space: AddressSpace::Generic,
                        in_memory: true,
                    })
                }
                (Projection::Index(index), Cursor::Ptr(p)) => {
                    let Type::Array { elem, len } = &p.ty else {
                        return Err(self.error(format!("indexing a `{}` place", p.ty)));
                    };
                    let Some(i) = self.index_operand(*index)? else {
                        return Ok(None);
                    };
                    // A constant index known to be in range needs no check (after
                    // unrolling, NVVM then keeps a local array in registers).
                    let known_in_range = i.parse::<u64>().is_ok_and(|c| c < *len)
                        || self.func.unchecked_indices.contains(index);
                    if self.func.options.bounds_check && !known_in_range {
                        self.bounds_check(&i, &len.to_string(), place, condition)?;
                    }
                    let array_ty = types::memory(&p.ty)?;
                    let ptr_ty = types::pointer(&array_ty, p.space);
                    let ptr = self.def(
                        "elem.ptr",
                        format!(
                            "getelementptr inbounds {array_ty}, {ptr_ty} {}, i64 0, i64 {i}",
                            p.ptr
                        ),
                    );
                    Cursor::Ptr(PlacePtr {
                        ptr,
                        ty: (**elem).clone(),
                        space: p.space,
                        in_memory: true,
                    })
                }
                (Projection::Field(index), Cursor::Ptr(p)) if matches!(p.ty, Type::Struct(_)) => {
                    let Type::Struct(def) = &p.ty else {
                        return Err(self.error("a struct place"));
                    };
                    let field_ty = def
                        .fields
                        .get(*index as usize)
                        .map(|f| f.ty.clone())
                        .ok_or_else(|| self.error(format!("no field {index} on `{}`", p.ty)))?;
                    let struct_ty = types::memory(&p.ty)?;
                    let ptr_ty = types::pointer(&struct_ty, p.space);
                    let ptr = self.def(
                        "field.ptr",
                        format!(
                            "getelementptr inbounds {struct_ty}, {ptr_ty} {}, i32 0, i32 {index}",
                            p.ptr
                        ),
                    );
                    // A struct is always in its memory form: a `bool` field is a byte.
                    Cursor::Ptr(PlacePtr {
                        ptr,
                        ty: field_ty,
                        in_memory: true,
                        ..p
                    })
                }
                (Projection::Field(index), Cursor::Ptr(p)) => {
                    let Type::Tuple(fields) = &p.ty else {
                        return Err(self.error(format!("field {index} of a `{}` place", p.ty)));
                    };
                    let field_ty = fields
                        .get(*index as usize)
                        .cloned()
                        .ok_or_else(|| self.error(format!("no field {index} on `{}`", p.ty)))?;
                    let tuple_ty = types::value(&p.ty)?;
                    let ptr_ty = types::pointer(&tuple_ty, p.space);
                    let ptr = self.def(
                        "field.ptr",
                        format!(
                            "getelementptr {tuple_ty}, {ptr_ty} {}, i32 0, i32 {index}",
                            p.ptr
                        ),
                    );
                    Cursor::Ptr(PlacePtr {
                        ptr,
                        ty: field_ty,
                        in_memory: false,
                        ..p
                    })
                }
                (Projection::Field(index), Cursor::Slice { .. }) => {
                    return Err(self.error(format!("field {index} of a slice")))
                }
            };
        }
        match cursor {
            Cursor::Ptr(p) => Ok(Some(p)),
            Cursor::Slice { .. } => Err(self.error("a slice's pointee used without an index")),
        }
    }

    /// An index operand (usize), or `None` if evaluating it diverged.
    fn index_operand(&mut self, index: Handle<Expr>) -> Result<Option<String>, Error> {
        let s = self.scalar_of(index)?;
        if types::scalar(s) != "i64" || !s.is_integer() {
            return Err(self.error(format!("index of type `{s}`; expected usize")));
        }
        Ok(match self.expr(index)? {
            Val::V(v) => Some(v),
            _ => None,
        })
    }

    /// The index `i` (the value of `index`), masked to the bits the value-range analysis
    /// proves it fits in: the same value, but LLVM now knows its bound and drops a
    /// check against a length it learns by inlining (`warp_sums[warp - 1]` under `if
    /// warp > 0` in a device function given a 32-element shared array).
    fn with_known_range(&mut self, index: Handle<Expr>, i: String) -> String {
        match self.ranges.interval(index) {
            Some(r) if r.min < r.max && r.max < 1 << 16 => {
                let mask = (r.max + 1).next_power_of_two() - 1;
                self.def("idx.known", format!("and i64 {i}, {mask}"))
            }
            _ => i,
        }
    }

    /// Rust's bounds check, blamed on the place expression; with a `condition`, the
    /// index counts only where it holds (a predicated prefetch's load).
    fn bounds_check(
        &mut self,
        i: &str,
        len: &str,
        place: &Place,
        condition: Option<&str>,
    ) -> Result<(), Error> {
        let inside = self.def("inbounds", format!("icmp ult i64 {i}, {len}"));
        let ok = match condition {
            Some(c) => {
                let skipped = self.def("pf.skipped", format!("xor i1 {c}, true"));
                self.def("inbounds", format!("or i1 {skipped}, {inside}"))
            }
            None => inside,
        };
        self.panic_unless_at(&ok, place.loc, crate::ir::checks::INDEX_MESSAGE, (i, len))
    }

    /// The LLVM type stored at `p` (`i8` for a `bool` array element).
    fn stored_type(&self, p: &PlacePtr) -> Result<String, Error> {
        if p.in_memory {
            types::memory(&p.ty)
        } else {
            types::value(&p.ty)
        }
    }

    /// Loads the value at `p` as a value of its type, named after `base`.
    pub fn load_place(&mut self, p: &PlacePtr, base: &str) -> Result<String, Error> {
        let ty = self.stored_type(p)?;
        let ptr_ty = types::pointer(&ty, p.space);
        let v = self.def(base, format!("load {ty}, {ptr_ty} {}", p.ptr));
        Ok(match (&p.ty, p.in_memory) {
            (Type::Scalar(ScalarType::Bool), true) => self.value_from_memory(ScalarType::Bool, &v),
            _ => v,
        })
    }

    /// Stores value `v` (of the place's type) at `p`.
    pub fn store_place(&mut self, p: &PlacePtr, v: &str) -> Result<(), Error> {
        let ty = self.stored_type(p)?;
        let v = match (&p.ty, p.in_memory) {
            (Type::Scalar(ScalarType::Bool), true) => self.value_to_memory(ScalarType::Bool, v),
            _ => v.to_string(),
        };
        let ptr_ty = types::pointer(&ty, p.space);
        self.inst(format!("store {ty} {v}, {ptr_ty} {}", p.ptr));
        Ok(())
    }

    /// `&place` as a reference of type `ty` (a pointer into the place's space, made
    /// generic if the reference's type says so).
    pub fn address_of(&mut self, place: &'a Place, ty: &Type) -> Result<Val, Error> {
        let Some(p) = self.place_ptr(place)? else {
            return Ok(Val::Never);
        };
        let Type::Ref { space, .. } = ty else {
            return Err(self.error(format!("`&place` typed `{ty}`")));
        };
        if *space == p.space {
            return Ok(Val::V(p.ptr));
        }
        if *space != AddressSpace::Generic {
            return Err(self.error(format!(
                "a reference into {:?} memory typed as one into {space:?} memory",
                p.space
            )));
        }
        let pointee = types::memory(&p.ty)?;
        let from = types::pointer(&pointee, p.space);
        let to = types::pointer(&pointee, AddressSpace::Generic);
        Ok(Val::V(self.def(
            "generic",
            format!("addrspacecast {from} {} to {to}", p.ptr),
        )))
    }

    /// `&mut [T; N]` → `&mut [T]`: a generic pointer to element 0 and the length.
    pub fn ref_to_slice(&mut self, reference: Handle<Expr>, ty: &Type) -> Result<Val, Error> {
        let rt = self.ty_of(reference)?.clone();
        let Type::Ref { pointee, space, .. } = &rt else {
            return Err(self.error(format!("`{rt}` used as a slice")));
        };
        let Type::Array { elem, len } = &**pointee else {
            return Err(self.error(format!("`{rt}` used as a slice")));
        };
        let Val::V(r) = self.expr(reference)? else {
            return Ok(Val::Never);
        };
        let array_ty = types::memory(pointee)?;
        let elem_ty = types::memory(elem)?;
        let first = self.def(
            "first",
            format!(
                "getelementptr inbounds {array_ty}, {} {r}, i64 0, i64 0",
                types::pointer(&array_ty, *space)
            ),
        );
        let first = if *space == AddressSpace::Generic {
            first
        } else {
            self.def(
                "generic",
                format!(
                    "addrspacecast {} {first} to {elem_ty}*",
                    types::pointer(&elem_ty, *space)
                ),
            )
        };
        let slice_ty = types::value(ty)?;
        let s0 = self.def(
            "slice",
            format!("insertvalue {slice_ty} undef, {elem_ty}* {first}, 0"),
        );
        Ok(Val::V(self.def(
            "slice",
            format!("insertvalue {slice_ty} {s0}, i64 {len}, 1"),
        )))
    }

    /// `[a, b, ..]` (`items`) or `[x; n]` (one item repeated) as an aggregate value.
    pub fn array_value(
        &mut self,
        ty: &Type,
        items: &[Handle<Expr>],
        repeat: Option<u64>,
    ) -> Result<Val, Error> {
        let Type::Array { elem, .. } = ty else {
            return Err(self.error(format!("an array literal typed `{ty}`")));
        };
        let array_ty = types::memory(ty)?;
        let elem_ty = types::memory(elem)?;
        let mut values = Vec::new();
        for item in items {
            let Val::V(v) = self.expr(*item)? else {
                return Ok(Val::Never);
            };
            let v = match **elem {
                Type::Scalar(ScalarType::Bool) => self.value_to_memory(ScalarType::Bool, &v),
                _ => v,
            };
            values.push(v);
        }
        let count = repeat.unwrap_or(values.len() as u64);
        if count == 0 {
            return Ok(Val::V("zeroinitializer".to_string()));
        }
        // Constant elements make a constant aggregate (`[0.0; 256]` is one operand).
        if values.iter().all(|v| !v.starts_with('%')) {
            if repeat.is_some() && values.iter().all(|v| is_zero(v)) {
                return Ok(Val::V("zeroinitializer".to_string()));
            }
            let parts: Vec<String> = (0..count)
                .map(|k| {
                    let v = if repeat.is_some() {
                        &values[0]
                    } else {
                        &values[k as usize]
                    };
                    format!("{elem_ty} {v}")
                })
                .collect();
            return Ok(Val::V(format!("[{}]", parts.join(", "))));
        }
        let mut acc = "undef".to_string();
        for k in 0..count {
            let v = match repeat {
                Some(_) => values.first(),
                None => values.get(k as usize),
            }
            .ok_or_else(|| self.error("an array repeat without its value"))?
            .clone();
            acc = self.def(
                "array",
                format!("insertvalue {array_ty} {acc}, {elem_ty} {v}, {k}"),
            );
        }
        Ok(Val::V(acc))
    }
}

/// Whether a constant operand is all zero bits.
fn is_zero(v: &str) -> bool {
    matches!(v, "0" | "false" | "zeroinitializer" | "0x0000000000000000")
}
