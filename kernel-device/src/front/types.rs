//! Written types (`syn::Type`) → frontend types, with a spanned diagnostic naming the
//! construct and the supported alternative for everything outside the subset.

use super::consts::{eval_len, ConstEnv};
use super::first_span::FirstSpan;
use super::infer::Ty;
use crate::diag::Diagnostic;
use crate::ir::{AddressSpace, ScalarType};
use syn::spanned::Spanned;

/// Where a type is written; decides what is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeSite {
    /// A kernel parameter: scalars and slices of scalars.
    Param,
    /// A device function parameter: also arrays by value.
    DeviceParam,
    /// A device function's return type: scalars, `()` and tuples of them.
    Return,
    /// A `let` annotation or a cast target: anything a value may have; `_` allowed.
    Let,
}

const HEAP_TYPES: &[&str] = &[
    "Vec",
    "Box",
    "String",
    "Rc",
    "Arc",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "LinkedList",
    "BinaryHeap",
    "Cow",
];

pub fn heap_diag(name: &str, span: proc_macro2::Span) -> Diagnostic {
    Diagnostic::new(
        span,
        format!("`{name}` is not supported in kernels: device code cannot allocate on the heap"),
    )
    .with_hint(
        "use a slice parameter (`&[T]` / `&mut [T]`) and pass a Vec or DeviceArray at launch",
    )
}

pub fn wide_int_diag(name: &str, span: proc_macro2::Span) -> Diagnostic {
    Diagnostic::new(
        span,
        format!("`{name}` is not supported in kernels: the GPU has no 128-bit integers"),
    )
    .with_hint("use `i64` or `u64`")
}

/// Whether `krate::ty` names a half type through the crate that defines it or
/// cudajit's re-export (`half::f16`, `cudajit::bf16`).
pub fn half_crate_prefix(krate: &str, ty: &str) -> bool {
    matches!(
        (krate, ty),
        ("half" | "cudajit", "f16" | "bf16") | ("cudajit", "e4m3")
    )
}

/// A scalar named by a single-segment path (`f32`), or a half type by its crate path
/// (`half::f16`), if that is what `ty` is.
pub fn scalar_of_path(path: &syn::Path) -> Option<ScalarType> {
    let segs = &path.segments;
    if segs.len() == 2
        && segs.iter().all(|s| s.arguments.is_none())
        && half_crate_prefix(&segs[0].ident.to_string(), &segs[1].ident.to_string())
    {
        return ScalarType::from_rust_name(&segs[1].ident.to_string());
    }
    if path.leading_colon.is_some() || path.segments.len() != 1 {
        return None;
    }
    let seg = path.segments.first()?;
    if !seg.arguments.is_none() {
        return None;
    }
    ScalarType::from_rust_name(&seg.ident.to_string())
}

/// A written scalar type (`f32`), looking through parentheses.
pub fn scalar_of_type(ty: &syn::Type) -> Option<ScalarType> {
    match ty {
        syn::Type::Paren(p) => scalar_of_type(&p.elem),
        syn::Type::Group(g) => scalar_of_type(&g.elem),
        syn::Type::Path(p) if p.qself.is_none() => scalar_of_path(&p.path),
        _ => None,
    }
}

/// `[T; N]` (nested for `[[T; N]; M]`) with a scalar at the bottom and constant
/// lengths (`TILE + 1`).
fn array_type(
    a: &syn::TypeArray,
    env: &ConstEnv,
    infer: &mut dyn FnMut() -> Ty,
) -> Result<Ty, Diagnostic> {
    let elem = match &*a.elem {
        syn::Type::Array(inner) => array_type(inner, env, infer)?,
        syn::Type::Infer(_) => infer(),
        other => match scalar_of_type(other) {
            Some(s) => Ty::Scalar(s),
            // `[Body; 4]`: an array of `#[derive(DeviceCopy)]` structs (or enums, which
            // are their repr integer).
            None if matches!(
                lower_type(other, TypeSite::Let, env, infer),
                Ok(Ty::Struct(_) | Ty::Scalar(_))
            ) =>
            {
                lower_type(other, TypeSite::Let, env, infer)?
            }
            None => {
                // Report heap and wide types as such; anything else by its shape.
                if let Err(d) = lower_type(other, TypeSite::Let, env, infer) {
                    return Err(d);
                }
                return Err(Diagnostic::new(
                    other.span(),
                    "arrays in kernels hold scalars, `#[derive(DeviceCopy)]` structs or arrays of them",
                )
                .with_hint("use `[T; N]` or `[[T; N]; M]` with a scalar `T` such as `f32`, or a `#[derive(DeviceCopy)]` struct"));
            }
        },
    };
    let len = eval_len(&a.len, env)?;
    Ok(Ty::array(elem, len))
}

/// Converts a written type, or returns the diagnostic explaining why it cannot cross
/// into device code. `infer` makes a fresh variable for `_`; `env` gives array lengths.
pub fn lower_type(
    ty: &syn::Type,
    site: TypeSite,
    env: &ConstEnv,
    infer: &mut dyn FnMut() -> Ty,
) -> Result<Ty, Diagnostic> {
    match ty {
        syn::Type::Paren(p) => lower_type(&p.elem, site, env, infer),
        syn::Type::Group(g) => lower_type(&g.elem, site, env, infer),
        syn::Type::Path(p) => {
            if p.qself.is_some() {
                return Err(Diagnostic::new(
                    ty.span(),
                    "qualified types are not supported in kernels",
                )
                .with_hint("use a scalar type such as `f32` or `u32`"));
            }
            path_type(&p.path, site, env)
        }
        syn::Type::Tuple(t) => {
            if t.elems.is_empty() {
                return match site {
                    TypeSite::Param | TypeSite::DeviceParam => Err(Diagnostic::new(
                        ty.span(),
                        "a `()` parameter is not supported in kernels",
                    )),
                    _ => Ok(Ty::Unit),
                };
            }
            if site == TypeSite::Param {
                return Err(Diagnostic::new(
                    ty.span(),
                    "a kernel cannot take a tuple parameter",
                )
                .with_hint("pass each value as its own parameter; device functions take tuples"));
            }
            let mut items = Vec::new();
            for elem in &t.elems {
                match lower_type(elem, site, env, infer)? {
                    Ty::Slice { .. } => {
                        return Err(Diagnostic::new(
                            elem.span(),
                            "tuples of slices are not supported in kernels",
                        ))
                    }
                    other => items.push(other),
                }
            }
            Ok(Ty::Tuple(items))
        }
        syn::Type::Reference(r) => reference_type(r, site, env, infer),
        syn::Type::Infer(_) if site == TypeSite::Let => Ok(infer()),
        syn::Type::Infer(_) => Err(Diagnostic::new(
            ty.span(),
            "the placeholder `_` is not allowed in function signatures",
        )
        .with_hint("write the type, e.g. `f32`")),
        syn::Type::Ptr(_) => Err(Diagnostic::new(
            ty.span(),
            "raw pointers are not supported in kernels",
        )
        .with_hint("use a slice parameter (`&[T]` / `&mut [T]`)")),
        syn::Type::Array(_) if site == TypeSite::Param => Err(Diagnostic::new(
            ty.span(),
            "arrays cannot be passed to a kernel by value",
        )
        .with_hint("take a slice parameter (`&[T]` / `&mut [T]`); device functions may take arrays by value")),
        syn::Type::Array(a) => array_type(a, env, infer),
        syn::Type::Slice(_) => Err(Diagnostic::new(
            ty.span(),
            "an unsized slice `[T]` cannot be used by value",
        )
        .with_hint("take a reference: `&[T]` or `&mut [T]`")),
        syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => Err(Diagnostic::new(
            ty.span(),
            "trait objects and `impl Trait` are not supported in kernels",
        )
        .with_hint("use a concrete scalar or slice type")),
        syn::Type::Never(_) => Err(Diagnostic::new(
            ty.span(),
            "the never type `!` is not supported here",
        )),
        syn::Type::BareFn(_) => Err(Diagnostic::new(
            ty.span(),
            "function pointers are not supported in kernels",
        )
        .with_hint("call a `#[device]` function directly")),
        _ => Err(
            Diagnostic::new(ty.span(), "this type is not supported in kernels")
                .with_hint("use a scalar (`f32`, `u32`, ...) or a slice (`&[T]` / `&mut [T]`)"),
        ),
    }
}

fn path_type(path: &syn::Path, site: TypeSite, env: &ConstEnv) -> Result<Ty, Diagnostic> {
    let span = path.first_span();
    let Some(last) = path.segments.last() else {
        return Err(Diagnostic::new(span, "empty type path"));
    };
    let name = last.ident.to_string();
    if HEAP_TYPES.contains(&name.as_str()) {
        return Err(heap_diag(&name, last.ident.span()));
    }
    if name == "i128" || name == "u128" {
        return Err(wide_int_diag(&name, last.ident.span()));
    }
    if name == "char" || name == "str" {
        return Err(Diagnostic::new(
            last.ident.span(),
            format!("`{name}` is not supported in kernels: device code has no text types"),
        )
        .with_hint("use integers (`u8`, `u32`) for character data"));
    }
    if let Some(scalar) = scalar_of_path(path) {
        return Ok(Ty::Scalar(scalar));
    }
    if let Some(complex) = super::complex::complex_of_path(path)? {
        return super::structs::struct_at_site(complex, site, last.ident.span());
    }
    // tensor cores
    if let Some(fragment) = super::mma::fragment_of_path(path)? {
        return Ok(fragment);
    }
    if !last.arguments.is_none() {
        return Err(Diagnostic::new(
            span,
            format!("generic type `{name}<..>` is not supported in kernels"),
        )
        .with_hint("use a scalar (`f32`, `u32`, ...) or a slice (`&[T]` / `&mut [T]`)"));
    }
    if let Some(repr) = super::enums::enum_repr(path, env) {
        return Ok(Ty::Scalar(repr));
    }
    if let Some(s) = super::structs::struct_ty(path, env)? {
        return super::structs::struct_at_site(s, site, last.ident.span());
    }
    let starts_upper = name.chars().next().is_some_and(|c| c.is_uppercase());
    let what = if starts_upper {
        format!("`{name}` is not a scalar type: structs, enums and type aliases are not yet supported in kernels")
    } else {
        format!("unknown type `{name}` in a kernel")
    };
    let hint = match site {
        TypeSite::Param | TypeSite::DeviceParam => {
            "pass scalars (`f32`, `u32`, ...) or slices (`&[T]` / `&mut [T]`)"
        }
        _ => "use a scalar type such as `f32`, `u32` or `usize`",
    };
    Err(Diagnostic::new(last.ident.span(), what).with_hint(hint))
}

fn reference_type(
    r: &syn::TypeReference,
    site: TypeSite,
    env: &ConstEnv,
    infer: &mut dyn FnMut() -> Ty,
) -> Result<Ty, Diagnostic> {
    let span = r.and_token.span;
    // Hopper: TMA
    if let Some(map) = super::tma::tensor_map_type(r, site) {
        return map;
    }
    let elem = match &*r.elem {
        syn::Type::Paren(p) => &*p.elem,
        other => other,
    };
    match elem {
        syn::Type::Slice(s) => {
            if site == TypeSite::Return {
                return Err(
                    Diagnostic::new(r.span(), "device functions cannot return slices")
                        .with_hint("return scalars, or write into a `&mut [T]` parameter"),
                );
            }
            let inner = lower_type(&s.elem, TypeSite::Let, env, &mut || Ty::Error)?;
            match inner {
                Ty::Scalar(elem) => Ok(Ty::Slice {
                    elem,
                    mutable: r.mutability.is_some(),
                }),
                Ty::Struct(elem) => Ok(Ty::StructSlice {
                    elem,
                    mutable: r.mutability.is_some(),
                }),
                Ty::Array { .. } => Err(Diagnostic::new(
                    s.elem.span(),
                    "slices of arrays (`&mut [[f32; 33]]`) are not supported in kernels",
                )
                .with_hint(FLAT_2D_HINT)),
                _ => Err(Diagnostic::new(
                    s.elem.span(),
                    "slices must hold scalars (`f32`, `u32`, ...) or `#[derive(DeviceCopy)]` structs",
                )),
            }
        }
        syn::Type::Reference(_) => Err(Diagnostic::new(
            span,
            "references to references (`&&[T]`) cannot be passed to kernels",
        )
        .with_hint("take the slice itself: `&[T]` or `&mut [T]`")),
        syn::Type::Path(p) if p.path.is_ident("str") => Err(Diagnostic::new(
            span,
            "`&str` is not supported in kernels: device code has no text types",
        )
        .with_hint("use integers (`u8`, `u32`) for character data")),
        syn::Type::Path(p) => {
            // Report heap types (`&Vec<f32>`) as such; otherwise it is a reference to
            // a scalar or a struct.
            let inner = path_type(&p.path, TypeSite::Let, env)?;
            let name = p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let what = if matches!(inner, Ty::Struct(_)) {
                "structs"
            } else {
                "scalars"
            };
            Err(Diagnostic::new(
                span,
                format!("references to {what} (`&{name}`) are not supported in kernels"),
            )
            .with_hint(format!(
                "take the value (`x: {name}`) or a slice (`&[{name}]` / `&mut [{name}]`)"
            )))
        }
        syn::Type::Array(a) if site == TypeSite::Let => Ok(Ty::Ref {
            pointee: Box::new(array_type(a, env, infer)?),
            mutable: r.mutability.is_some(),
            space: None,
        }),
        // Numba's `cuda.reduce` passes its 2-D shared `sm_partials` to a device
        // function: a reference to an array of arrays, a generic pointer (the caller's
        // shared or local array converts to it at the call).
        syn::Type::Array(a)
            if site == TypeSite::DeviceParam && matches!(&*a.elem, syn::Type::Array(_)) =>
        {
            Ok(Ty::Ref {
                pointee: Box::new(array_type(a, env, infer)?),
                mutable: r.mutability.is_some(),
                space: Some(AddressSpace::Generic),
            })
        }
        syn::Type::Array(a) if matches!(&*a.elem, syn::Type::Array(_)) => Err(Diagnostic::new(
            span,
            "references to 2-D arrays (`&mut [[f32; 33]; 4]`) cannot be kernel parameters or results",
        )
        .with_hint(FLAT_2D_HINT)),
        syn::Type::Array(_) => Err(Diagnostic::new(
            span,
            "references to arrays cannot be passed to or returned from functions in kernels",
        )
        .with_hint("take a slice (`&[T]` / `&mut [T]`): `&mut [T; N]` coerces to it; or pass the array by value")),
        _ => Err(Diagnostic::new(
            span,
            "only slice references (`&[T]` / `&mut [T]`) are supported in kernels",
        )
        .with_hint("take `&[T]` or `&mut [T]` with a scalar `T`, or a scalar by value")),
    }
}

/// What a function taking rows of an array does instead: a `#[device]` function takes
/// the 2-D array itself, or a flat array as a slice.
const FLAT_2D_HINT: &str = "a `#[device]` function takes the 2-D array itself (`sm: &mut [[f32; 33]; 4]`); or declare the array flat (`shared_array::<[f32; 4 * 33]>()`), pass it as `&mut [f32]` and index it `sm[r * 33 + c]`";
