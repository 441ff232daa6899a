//! The renderer: a [`FormatProgram`] and decoded argument values → the `String` that
//! Rust's `format!` prints for the same values and spec, byte for byte.
//!
//! Each scalar (and `Complex`) is formatted by Rust's own implementation (std's for
//! numbers and `bool`, `half`'s for `f16`/`bf16`, num-complex's for `Complex`), with the
//! flags that change the digits (`+`, `#`, precision) chosen from literal format
//! strings, since `format!` takes only width and precision at run time. Width, fill,
//! alignment and `0` are then applied here, by the rule the value's own `fmt` uses:
//! numbers pad as `Formatter::pad_integral`/`pad_formatted_parts` do (right by
//! default; `0` puts zeros after the sign and radix prefix), `bool` as
//! `Formatter::pad` (left by default, `0` ignored), `Complex` as num-complex (spaces
//! on the left, fill and alignment ignored), and `half`'s `e`/`x`/`o`/`b` ignore every
//! option. Structs and arrays are written as `#[derive(Debug)]` and `[T; N]`'s `Debug`
//! write them (`debug_struct`/`debug_list`, with the 4-space indentation of `{:#?}`),
//! passing the whole spec to every field, as Rust does.

use half::{bf16, f16};
use num_complex::Complex;

use super::parse::{Align, Count, FormatProgram, FormatSpec, FormatTrait, Piece};
use super::record::{ScalarValue, Value};
use crate::ir::layout::complex_elem;
use crate::ir::{ScalarType, Type};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error("the format reads {expected} arguments but the record holds {found}")]
    ArgumentCount { expected: usize, found: usize },
    #[error("{0}")]
    Trait(#[from] TraitError),
    #[error("a record names format {0}, which the format table does not have")]
    UnknownFormat(u32),
    #[error("a width or precision argument must be a `usize`, found `{0}`")]
    CountNotUsize(Type),
}

/// A value whose type does not implement the placeholder's trait: what rustc says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TraitError {
    #[error("`{ty}` doesn't implement `std::fmt::{trait_name}`")]
    NotImplemented { ty: Type, trait_name: &'static str },
    #[error("the trait `std::fmt::{trait_name}` is not implemented for `{ty}`")]
    NotImplementedFor { ty: Type, trait_name: &'static str },
    #[error("values of type `{0}` cannot be printed from a kernel")]
    Unprintable(Type),
}

/// Whether values of `ty` can be printed with `format_trait`: the check the front end
/// makes at each placeholder (a struct must also derive `Debug`, which the front end
/// knows and this does not).
pub fn check_trait(ty: &Type, format_trait: FormatTrait) -> Result<(), TraitError> {
    use FormatTrait::*;
    let trait_name = format_trait.trait_name();
    let supported = match ty {
        Type::Scalar(s) if s.is_integer() => true,
        Type::Scalar(ScalarType::Bool) => {
            matches!(format_trait, Display) || format_trait.is_debug()
        }
        // `half` prints the bits for the radix traits.
        Type::Scalar(s) if s.is_half() => true,
        Type::Scalar(_) => !matches!(format_trait, LowerHex | UpperHex | Octal | Binary),
        Type::Struct(def) if complex_elem(def).is_some() => {
            matches!(format_trait, Display | LowerExp | UpperExp) || format_trait.is_debug()
        }
        Type::Struct(_) => format_trait.is_debug(),
        Type::Array { elem, .. } => {
            check_trait(elem, FormatTrait::Debug)?;
            format_trait.is_debug()
        }
        other => return Err(TraitError::Unprintable(other.clone())),
    };
    match (supported, format_trait) {
        (true, _) => Ok(()),
        (false, Display) | (false, Debug | DebugLowerHex | DebugUpperHex) => {
            Err(TraitError::NotImplemented {
                ty: ty.clone(),
                trait_name,
            })
        }
        (false, _) => Err(TraitError::NotImplementedFor {
            ty: ty.clone(),
            trait_name,
        }),
    }
}

/// Formats `values` (in [`FormatProgram::arguments`] order) as the program says.
pub fn render(program: &FormatProgram, values: &[Value]) -> Result<String, RenderError> {
    let mut out = String::new();
    render_into(&mut out, program, values)?;
    Ok(out)
}

pub fn render_into(
    out: &mut String,
    program: &FormatProgram,
    values: &[Value],
) -> Result<(), RenderError> {
    if values.len() != program.arguments.len() {
        return Err(RenderError::ArgumentCount {
            expected: program.arguments.len(),
            found: values.len(),
        });
    }
    for piece in &program.pieces {
        match piece {
            Piece::Literal(text) => out.push_str(text),
            Piece::Placeholder(p) => {
                let options = Options {
                    spec: &p.spec,
                    width: count(p.spec.width, values)?,
                    precision: count(p.spec.precision, values)?,
                };
                let value = &values[p.argument];
                check_trait(&value.ty(), p.spec.format_trait)?;
                write_value(out, value, &options);
            }
        }
    }
    Ok(())
}

fn count(count: Option<Count>, values: &[Value]) -> Result<Option<usize>, RenderError> {
    match count {
        None => Ok(None),
        Some(Count::Literal(n)) => Ok(Some(n)),
        Some(Count::Argument(i)) => match &values[i] {
            Value::Scalar(ScalarValue::Usize(n)) => Ok(Some(*n as usize)),
            other => Err(RenderError::CountNotUsize(other.ty())),
        },
    }
}

/// A placeholder's spec with its width and precision arguments read.
struct Options<'s> {
    spec: &'s FormatSpec,
    width: Option<usize>,
    precision: Option<usize>,
}

/// How a leaf's `fmt` applies width, fill, alignment and `0`.
#[derive(Clone, Copy)]
enum Padding {
    /// `pad_integral` / `pad_formatted_parts`: right by default; with `0`, zeros after
    /// the sign (and after the radix prefix when `radix_prefix`).
    Number { radix_prefix: bool },
    /// `Formatter::pad`: left by default; `0` does nothing.
    Text,
    /// num-complex: spaces on the left up to the width, whatever the spec says.
    SpacesLeft,
    /// `write!` to the formatter with a fresh spec: no padding at all.
    None,
}

fn write_value(out: &mut String, value: &Value, options: &Options) {
    match value {
        Value::Scalar(s) => {
            let (body, padding) = scalar_body(*s, options);
            pad(out, &body, padding, options);
        }
        Value::Struct { def, fields } => {
            if let (Some(_), false) = (complex_elem(def), options.spec.format_trait.is_debug()) {
                let (body, padding) = complex_body(fields, options);
                return pad(out, &body, padding, options);
            }
            // `#[derive(Debug)]` prints the type's name without generic arguments.
            let name = def.name.split('<').next().unwrap_or(&def.name);
            out.push_str(name);
            if fields.is_empty() {
                return;
            }
            if options.spec.alternate {
                out.push_str(" {\n");
                for (field, value) in def.fields.iter().zip(fields) {
                    let mut entry = format!("{}: ", field.name);
                    write_value(&mut entry, value, options);
                    entry.push_str(",\n");
                    indent_into(out, &entry);
                }
                out.push('}');
            } else {
                for (i, (field, value)) in def.fields.iter().zip(fields).enumerate() {
                    out.push_str(if i == 0 { " { " } else { ", " });
                    out.push_str(&field.name);
                    out.push_str(": ");
                    write_value(out, value, options);
                }
                out.push_str(" }");
            }
        }
        Value::Array { items, .. } => {
            out.push('[');
            if options.spec.alternate && !items.is_empty() {
                out.push('\n');
                for item in items {
                    let mut entry = String::new();
                    write_value(&mut entry, item, options);
                    entry.push_str(",\n");
                    indent_into(out, &entry);
                }
            } else {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_value(out, item, options);
                }
            }
            out.push(']');
        }
    }
}

/// `{:#?}`'s `PadAdapter`: four spaces at the start of every line of `text`.
fn indent_into(out: &mut String, text: &str) {
    let mut at_line_start = true;
    for line in text.split_inclusive('\n') {
        if at_line_start {
            out.push_str("    ");
        }
        at_line_start = line.ends_with('\n');
        out.push_str(line);
    }
}

/// `format!` of `$value` with the spec's `+`, `#` and precision, for the trait
/// spelled `$ty` (`""`, `"?"`, `"x"`, ...): eight literal format strings.
macro_rules! with_flags {
    ($value:expr, $ty:literal, $options:expr) => {{
        let value = $value;
        let spec = $options.spec;
        match (spec.sign_plus, spec.alternate, $options.precision) {
            (false, false, None) => format!(concat!("{:", $ty, "}"), value),
            (true, false, None) => format!(concat!("{:+", $ty, "}"), value),
            (false, true, None) => format!(concat!("{:#", $ty, "}"), value),
            (true, true, None) => format!(concat!("{:+#", $ty, "}"), value),
            (false, false, Some(p)) => format!(concat!("{:.p$", $ty, "}"), value, p = p),
            (true, false, Some(p)) => format!(concat!("{:+.p$", $ty, "}"), value, p = p),
            (false, true, Some(p)) => format!(concat!("{:#.p$", $ty, "}"), value, p = p),
            (true, true, Some(p)) => format!(concat!("{:+#.p$", $ty, "}"), value, p = p),
        }
    }};
}

/// Dispatches on the trait to [`with_flags!`] for the traits the value's type has;
/// the caller checked the trait ([`check_trait`]).
macro_rules! with_trait {
    ($value:expr, $options:expr, [$($variant:ident => $ty:literal),* $(,)?]) => {
        match $options.spec.format_trait {
            $(FormatTrait::$variant => with_flags!($value, $ty, $options),)*
            #[allow(unreachable_patterns)]
            other => unreachable!("check_trait admitted {other:?}"),
        }
    };
}

macro_rules! integer_body {
    ($value:expr, $options:expr) => {
        with_trait!($value, $options, [
            Display => "", Debug => "?", DebugLowerHex => "x?", DebugUpperHex => "X?",
            LowerHex => "x", UpperHex => "X", Octal => "o", Binary => "b",
            LowerExp => "e", UpperExp => "E",
        ])
    };
}

macro_rules! float_body {
    ($value:expr, $options:expr) => {
        with_trait!($value, $options, [
            Display => "", Debug => "?", DebugLowerHex => "x?", DebugUpperHex => "X?",
            LowerExp => "e", UpperExp => "E",
        ])
    };
}

fn scalar_body(value: ScalarValue, options: &Options) -> (String, Padding) {
    let radix_prefix = matches!(
        options.spec.format_trait,
        FormatTrait::LowerHex
            | FormatTrait::UpperHex
            | FormatTrait::Octal
            | FormatTrait::Binary
            | FormatTrait::DebugLowerHex
            | FormatTrait::DebugUpperHex
    ) && options.spec.alternate;
    let number = Padding::Number { radix_prefix };
    let float = Padding::Number {
        radix_prefix: false,
    };
    let body = match value {
        ScalarValue::Bool(v) => {
            let body = with_trait!(v, options, [
                Display => "", Debug => "?", DebugLowerHex => "x?", DebugUpperHex => "X?",
            ]);
            return (body, Padding::Text);
        }
        ScalarValue::I8(v) => integer_body!(v, options),
        ScalarValue::I16(v) => integer_body!(v, options),
        ScalarValue::I32(v) => integer_body!(v, options),
        ScalarValue::I64(v) | ScalarValue::Isize(v) => integer_body!(v, options),
        ScalarValue::U8(v) => integer_body!(v, options),
        ScalarValue::U16(v) => integer_body!(v, options),
        ScalarValue::U32(v) => integer_body!(v, options),
        ScalarValue::U64(v) | ScalarValue::Usize(v) => integer_body!(v, options),
        // `{:#x?}` gives integers a `0x`; floats have no prefix to keep before zeros.
        ScalarValue::F32(v) => return (float_body!(v, options), float),
        ScalarValue::F64(v) => return (float_body!(v, options), float),
        ScalarValue::F16(v) => return half_body(v, options),
        ScalarValue::BF16(v) => return half_body(v, options),
        // Printed as its exact value, an f32.
        ScalarValue::E4M3(v) => return (float_body!(v.to_f32(), options), float),
    };
    (body, number)
}

/// `half`'s `Display`/`Debug` format the value as an `f32` with the caller's
/// formatter; its `e`/`E`/`x`/`X`/`o`/`b` write with a fresh spec.
fn half_body<H>(value: H, options: &Options) -> (String, Padding)
where
    H: HalfFloat,
{
    match options.spec.format_trait {
        FormatTrait::Display
        | FormatTrait::Debug
        | FormatTrait::DebugLowerHex
        | FormatTrait::DebugUpperHex => (
            with_trait!(value, options, [
                Display => "", Debug => "?", DebugLowerHex => "x?", DebugUpperHex => "X?",
            ]),
            Padding::Number {
                radix_prefix: false,
            },
        ),
        FormatTrait::LowerExp => (format!("{value:e}"), Padding::None),
        FormatTrait::UpperExp => (format!("{value:E}"), Padding::None),
        FormatTrait::LowerHex => (format!("{value:x}"), Padding::None),
        FormatTrait::UpperHex => (format!("{value:X}"), Padding::None),
        FormatTrait::Octal => (format!("{value:o}"), Padding::None),
        FormatTrait::Binary => (format!("{value:b}"), Padding::None),
    }
}

/// `f16` and `bf16`, for [`half_body`].
trait HalfFloat:
    std::fmt::Display
    + std::fmt::Debug
    + std::fmt::LowerExp
    + std::fmt::UpperExp
    + std::fmt::LowerHex
    + std::fmt::UpperHex
    + std::fmt::Octal
    + std::fmt::Binary
    + Copy
{
}
impl HalfFloat for f16 {}
impl HalfFloat for bf16 {}

/// num-complex's `Display`/`LowerExp`/`UpperExp` of a `Complex<f32|f64>`'s fields.
fn complex_body(fields: &[Value], options: &Options) -> (String, Padding) {
    let body = match fields {
        [Value::Scalar(ScalarValue::F32(re)), Value::Scalar(ScalarValue::F32(im))] => {
            let value = Complex::new(*re, *im);
            with_trait!(value, options, [Display => "", LowerExp => "e", UpperExp => "E"])
        }
        [Value::Scalar(ScalarValue::F64(re)), Value::Scalar(ScalarValue::F64(im))] => {
            let value = Complex::new(*re, *im);
            with_trait!(value, options, [Display => "", LowerExp => "e", UpperExp => "E"])
        }
        other => unreachable!("complex_elem admitted fields {other:?}"),
    };
    (body, Padding::SpacesLeft)
}

fn pad(out: &mut String, body: &str, padding: Padding, options: &Options) {
    let spec = options.spec;
    let Some(width) = options.width else {
        out.push_str(body);
        return;
    };
    let length = body.chars().count();
    if length >= width {
        out.push_str(body);
        return;
    }
    let missing = width - length;
    let (fill, align) = match padding {
        Padding::None => {
            out.push_str(body);
            return;
        }
        Padding::SpacesLeft => (' ', Align::Right),
        Padding::Number { radix_prefix } if spec.zero_pad => {
            let sign = usize::from(body.starts_with(['+', '-']));
            let prefix = sign + if radix_prefix { 2 } else { 0 };
            out.push_str(&body[..prefix]);
            out.extend(std::iter::repeat_n('0', missing));
            out.push_str(&body[prefix..]);
            return;
        }
        Padding::Number { .. } => (spec.fill, spec.align.unwrap_or(Align::Right)),
        Padding::Text => (spec.fill, spec.align.unwrap_or(Align::Left)),
    };
    let (before, after) = match align {
        Align::Left => (0, missing),
        Align::Right => (missing, 0),
        Align::Center => (missing / 2, missing.div_ceil(2)),
    };
    out.extend(std::iter::repeat_n(fill, before));
    out.push_str(body);
    out.extend(std::iter::repeat_n(fill, after));
}
