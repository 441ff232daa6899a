//! The format pipeline against rustc's own `format!`: every `check!` formats the same
//! values with the same literal spec both ways — rustc's `format!`, and parse → record
//! in a buffer → decode → render — and asserts byte equality. Random values come from
//! a seeded `fastrand` (the seed is printed; `CUDAJIT_FMT_SEED=n` replays it).

use std::sync::Arc;

use half::{bf16, f16};
use num_complex::Complex;

use super::record::{
    append_record, decode, reset_buffer, RecordOrigin, ScalarValue, BUFFER_HEADER_BYTES,
};
use super::*;
use crate::ir::layout::{complex_def, StructDef, StructField};
use crate::ir::ScalarType;

/// A host value as the record holds it.
trait ToValue {
    fn ty() -> Type
    where
        Self: Sized;
    fn to_value(&self) -> Value;
}

macro_rules! scalar_to_value {
    ($($t:ty => $variant:ident as $held:ty),* $(,)?) => {$(
        impl ToValue for $t {
            fn ty() -> Type {
                Type::Scalar(ScalarType::$variant)
            }
            fn to_value(&self) -> Value {
                Value::Scalar(ScalarValue::$variant(*self as $held))
            }
        }
    )*};
}

scalar_to_value!(
    bool => Bool as bool, i8 => I8 as i8, i16 => I16 as i16, i32 => I32 as i32,
    i64 => I64 as i64, isize => Isize as i64, u8 => U8 as u8, u16 => U16 as u16,
    u32 => U32 as u32, u64 => U64 as u64, usize => Usize as u64, f32 => F32 as f32,
    f64 => F64 as f64,
);

impl ToValue for f16 {
    fn ty() -> Type {
        Type::Scalar(ScalarType::F16)
    }
    fn to_value(&self) -> Value {
        Value::Scalar(ScalarValue::F16(*self))
    }
}

impl ToValue for bf16 {
    fn ty() -> Type {
        Type::Scalar(ScalarType::BF16)
    }
    fn to_value(&self) -> Value {
        Value::Scalar(ScalarValue::BF16(*self))
    }
}

impl<T: ToValue> ToValue for Complex<T> {
    fn ty() -> Type {
        Type::Struct(Arc::new(complex_def(T::ty().scalar().unwrap())))
    }
    fn to_value(&self) -> Value {
        let Type::Struct(def) = Self::ty() else {
            unreachable!()
        };
        Value::Struct {
            def,
            fields: vec![self.re.to_value(), self.im.to_value()],
        }
    }
}

impl<T: ToValue, const N: usize> ToValue for [T; N] {
    fn ty() -> Type {
        Type::array(T::ty(), N as u64)
    }
    fn to_value(&self) -> Value {
        Value::Array {
            elem: T::ty(),
            items: self.iter().map(ToValue::to_value).collect(),
        }
    }
}

/// A `#[derive(DeviceCopy, Debug)]` struct as a kernel would have it.
macro_rules! test_struct {
    ($name:ident { $($field:ident: $t:ty),* $(,)? }) => {
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[allow(dead_code)]
        struct $name { $($field: $t),* }
        impl ToValue for $name {
            fn ty() -> Type {
                Type::Struct(Arc::new(StructDef {
                    name: stringify!($name).to_string(),
                    fields: vec![$(StructField {
                        name: stringify!($field).to_string(),
                        ty: <$t>::ty(),
                    }),*],
                }))
            }
            fn to_value(&self) -> Value {
                let Type::Struct(def) = Self::ty() else { unreachable!() };
                Value::Struct { def, fields: vec![$(self.$field.to_value()),*] }
            }
        }
    };
}

test_struct!(Point { x: f32, y: f32 });
test_struct!(Mixed { flag: bool, n: i64, bytes: [u8; 3], at: Point, z: Complex<f64> });

/// Parse, write one record into a buffer, read it back and render it.
fn through_buffer(string: &str, values: &[Value]) -> String {
    let explicit = ExplicitArguments {
        positional: values.len(),
        named: vec![],
    };
    let program = parse(string, &explicit).unwrap_or_else(|e| panic!("{string:?}: {e:?}"));
    assert_eq!(program.arguments.len(), values.len(), "{string:?} captures");
    let types: Vec<Type> = values.iter().map(Value::ty).collect();
    let layout = RecordLayout::new(&types).expect("printable");
    let mut table = FormatTable::default();
    let id = table.push(PrintFormat {
        program,
        argument_types: types,
        destination: Destination::Stdout,
    });
    let mut buffer = vec![0xA5u8; BUFFER_HEADER_BYTES + layout.record_bytes() as usize];
    reset_buffer(&mut buffer).unwrap();
    let origin = RecordOrigin {
        block: 3,
        thread: 7,
    };
    assert!(append_record(&mut buffer, id, origin, &layout, values));
    let decoded = decode(&buffer, |id| table.argument_types(id)).unwrap();
    assert_eq!(decoded.records.len(), 1);
    render_output(&table, decoded, PrintOrder::Arrival)
        .unwrap()
        .stdout
}

macro_rules! check {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{
        let expected = format!($fmt $(, $arg)*);
        let values: Vec<Value> = vec![$(ToValue::to_value(&$arg)),*];
        let got = through_buffer($fmt, &values);
        assert_eq!(got, expected, "format {:?} of {:?}", $fmt, values);
    }};
}

macro_rules! check_each {
    ($v:expr; $($fmt:literal),* $(,)?) => {{ $(check!($fmt, $v);)* }};
}

fn seeded_rng(test: &str) -> fastrand::Rng {
    let seed = std::env::var("CUDAJIT_FMT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("{test}: seed {seed} (replay with CUDAJIT_FMT_SEED={seed})");
    fastrand::Rng::with_seed(seed)
}

mod buffer;
mod combinations;
mod panics;
mod parse;
mod values;
