//! The one definition of how print records lie in a device buffer: the buffer's
//! header, a record's header, and each argument's raw bytes in its `ir` type's memory
//! layout ([`crate::ir::layout`]). The NVVM writer emits code that writes exactly this,
//! the simulator calls [`append_record`], and the host calls [`decode`].
//!
//! ```text
//! buffer:  [BufferHeader: 32 bytes][record][record]...           (little-endian)
//!   0  u64 cursor                bytes reserved so far (atomic add by writers)
//!   8  u64 capacity              bytes of the data area (set by the host)
//!  16  u64 dropped_records       records that did not fit (atomic add)
//!  24  u64 first_dropped_offset  the lowest offset that did not fit (atomic min),
//!                                u64::MAX while none was dropped
//! record:  [RecordHeader: 24 bytes][payload: payload_len bytes, a multiple of 8]
//!   0  u32 format_id   index into the kernel module's format table
//!   4  u32 payload_len
//!   8  u64 block       linear block index (x + y·gx + z·gx·gy)
//!  16  u32 thread      linear thread index in the block
//!  20  u32 reserved    0
//! payload: each argument at the next multiple of max(its alignment, 4)
//! ```
//!
//! A writer reserves `24 + payload_len` bytes with one atomic add on `cursor`; if the
//! record ends past `capacity` it writes nothing, adds one to `dropped_records` and
//! lowers `first_dropped_offset`. Reservations never overlap and grow monotonically,
//! so every record below `first_dropped_offset` was written whole and none above
//! was: the reader needs no per-record flag, and a buffer reused across launches only
//! needs its 32-byte header reset. A thread's records are in program order because its
//! reservations are.

use std::sync::Arc;

use half::{bf16, f16};

use crate::ir::layout::{layout, StructDef};
use crate::ir::{ScalarType, Type};

pub const BUFFER_HEADER_BYTES: usize = 32;
pub const RECORD_HEADER_BYTES: usize = 24;
/// Offsets of the buffer header's fields.
pub const CURSOR_OFFSET: usize = 0;
pub const CAPACITY_OFFSET: usize = 8;
pub const DROPPED_OFFSET: usize = 16;
pub const FIRST_DROPPED_OFFSET: usize = 24;

/// A scalar argument's value, as the host holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    /// `isize` is 64 bits on the device, as on the 64-bit hosts cudajit runs on.
    Isize(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    Usize(u64),
    F32(f32),
    F64(f64),
    F16(f16),
    BF16(bf16),
    E4M3(crate::e4m3),
}

/// An argument's value: a scalar, a struct (`Complex<T>` is one, see
/// [`crate::ir::layout::complex_def`]) or a fixed-size array.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Scalar(ScalarValue),
    Struct {
        def: Arc<StructDef>,
        fields: Vec<Value>,
    },
    Array {
        elem: Type,
        items: Vec<Value>,
    },
}

impl ScalarValue {
    pub fn scalar_type(self) -> ScalarType {
        match self {
            ScalarValue::Bool(_) => ScalarType::Bool,
            ScalarValue::I8(_) => ScalarType::I8,
            ScalarValue::I16(_) => ScalarType::I16,
            ScalarValue::I32(_) => ScalarType::I32,
            ScalarValue::I64(_) => ScalarType::I64,
            ScalarValue::Isize(_) => ScalarType::Isize,
            ScalarValue::U8(_) => ScalarType::U8,
            ScalarValue::U16(_) => ScalarType::U16,
            ScalarValue::U32(_) => ScalarType::U32,
            ScalarValue::U64(_) => ScalarType::U64,
            ScalarValue::Usize(_) => ScalarType::Usize,
            ScalarValue::F32(_) => ScalarType::F32,
            ScalarValue::F64(_) => ScalarType::F64,
            ScalarValue::F16(_) => ScalarType::F16,
            ScalarValue::BF16(_) => ScalarType::BF16,
            ScalarValue::E4M3(_) => ScalarType::E4M3,
        }
    }

    /// The value's bytes in memory (little-endian; `bool` as one byte, 0 or 1).
    fn to_le_bytes(self) -> Vec<u8> {
        match self {
            ScalarValue::Bool(v) => vec![v as u8],
            ScalarValue::I8(v) => v.to_le_bytes().to_vec(),
            ScalarValue::I16(v) => v.to_le_bytes().to_vec(),
            ScalarValue::I32(v) => v.to_le_bytes().to_vec(),
            ScalarValue::I64(v) | ScalarValue::Isize(v) => v.to_le_bytes().to_vec(),
            ScalarValue::U8(v) => v.to_le_bytes().to_vec(),
            ScalarValue::U16(v) => v.to_le_bytes().to_vec(),
            ScalarValue::U32(v) => v.to_le_bytes().to_vec(),
            ScalarValue::U64(v) | ScalarValue::Usize(v) => v.to_le_bytes().to_vec(),
            ScalarValue::F32(v) => v.to_le_bytes().to_vec(),
            ScalarValue::F64(v) => v.to_le_bytes().to_vec(),
            ScalarValue::F16(v) => v.to_le_bytes().to_vec(),
            ScalarValue::BF16(v) => v.to_le_bytes().to_vec(),
            ScalarValue::E4M3(v) => v.to_le_bytes().to_vec(),
        }
    }

    fn from_le_bytes(ty: ScalarType, b: &[u8]) -> ScalarValue {
        fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
            b[..N].try_into().expect("caller checked the length")
        }
        match ty {
            // Kernels store 0 or 1; anything else is read as Rust reads a set bit.
            ScalarType::Bool => ScalarValue::Bool(b[0] != 0),
            ScalarType::I8 => ScalarValue::I8(i8::from_le_bytes(arr(b))),
            ScalarType::I16 => ScalarValue::I16(i16::from_le_bytes(arr(b))),
            ScalarType::I32 => ScalarValue::I32(i32::from_le_bytes(arr(b))),
            ScalarType::I64 => ScalarValue::I64(i64::from_le_bytes(arr(b))),
            ScalarType::Isize => ScalarValue::Isize(i64::from_le_bytes(arr(b))),
            ScalarType::U8 => ScalarValue::U8(b[0]),
            ScalarType::U16 => ScalarValue::U16(u16::from_le_bytes(arr(b))),
            ScalarType::U32 => ScalarValue::U32(u32::from_le_bytes(arr(b))),
            ScalarType::U64 => ScalarValue::U64(u64::from_le_bytes(arr(b))),
            ScalarType::Usize => ScalarValue::Usize(u64::from_le_bytes(arr(b))),
            ScalarType::F32 => ScalarValue::F32(f32::from_le_bytes(arr(b))),
            ScalarType::F64 => ScalarValue::F64(f64::from_le_bytes(arr(b))),
            ScalarType::F16 => ScalarValue::F16(f16::from_le_bytes(arr(b))),
            ScalarType::BF16 => ScalarValue::BF16(bf16::from_le_bytes(arr(b))),
            ScalarType::E4M3 => ScalarValue::E4M3(crate::e4m3::from_le_bytes(arr(b))),
        }
    }
}

impl Value {
    /// The `ir` type whose layout the value is stored in.
    pub fn ty(&self) -> Type {
        match self {
            Value::Scalar(s) => Type::Scalar(s.scalar_type()),
            Value::Struct { def, .. } => Type::Struct(def.clone()),
            Value::Array { elem, items } => Type::array(elem.clone(), items.len() as u64),
        }
    }

    /// Writes the value's memory form at the start of `out` (padding left as is).
    fn write(&self, out: &mut [u8]) {
        match self {
            Value::Scalar(s) => {
                let bytes = s.to_le_bytes();
                out[..bytes.len()].copy_from_slice(&bytes);
            }
            Value::Struct { def, fields } => {
                let offsets = def.offsets().expect("a printable struct has a layout");
                for (field, offset) in fields.iter().zip(offsets) {
                    field.write(&mut out[offset as usize..]);
                }
            }
            Value::Array { elem, items } => {
                let stride = layout(elem).expect("a printable array has a layout").size as usize;
                for (i, item) in items.iter().enumerate() {
                    item.write(&mut out[i * stride..]);
                }
            }
        }
    }

    /// Reads a value of type `ty` from the start of `bytes` (at least its size long).
    fn read(ty: &Type, bytes: &[u8]) -> Result<Value, DecodeError> {
        match ty {
            Type::Scalar(s) => Ok(Value::Scalar(ScalarValue::from_le_bytes(*s, bytes))),
            Type::Struct(def) => {
                let offsets = def.offsets().ok_or(DecodeError::Unprintable(ty.clone()))?;
                let fields = def
                    .fields
                    .iter()
                    .zip(offsets)
                    .map(|(f, offset)| Value::read(&f.ty, &bytes[offset as usize..]))
                    .collect::<Result<_, _>>()?;
                Ok(Value::Struct {
                    def: def.clone(),
                    fields,
                })
            }
            Type::Array { elem, len } => {
                let stride = layout(elem)
                    .ok_or(DecodeError::Unprintable(ty.clone()))?
                    .size;
                let items = (0..*len)
                    .map(|i| Value::read(elem, &bytes[(i * stride) as usize..]))
                    .collect::<Result<_, _>>()?;
                Ok(Value::Array {
                    elem: (**elem).clone(),
                    items,
                })
            }
            other => Err(DecodeError::Unprintable(other.clone())),
        }
    }
}

/// Where each argument of a record lies in its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordLayout {
    /// Byte offset of each argument from the payload's start.
    pub offsets: Vec<u32>,
    /// The payload's length: a multiple of 8, so the next record's header is aligned.
    pub payload_len: u32,
}

impl RecordLayout {
    /// The layout of a record of arguments of `types`, or `None` if one has no memory
    /// layout (slices, references, tuples: not printable) or the record would not fit
    /// in the header's `u32` length.
    pub fn new(types: &[Type]) -> Option<RecordLayout> {
        let mut offsets = Vec::with_capacity(types.len());
        let mut end = 0u64;
        for ty in types {
            let l = layout(ty)?;
            let start = end.next_multiple_of(l.align.max(4));
            offsets.push(u32::try_from(start).ok()?);
            end = start + l.size;
        }
        let payload_len = u32::try_from(end.next_multiple_of(8)).ok()?;
        Some(RecordLayout {
            offsets,
            payload_len,
        })
    }

    /// Header and payload together: what a writer reserves.
    pub fn record_bytes(&self) -> u64 {
        RECORD_HEADER_BYTES as u64 + self.payload_len as u64
    }
}

/// Who wrote a record, for ordering a launch's output by (block, thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordOrigin {
    pub block: u64,
    pub thread: u32,
}

/// A record read back from a buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedRecord {
    pub format_id: u32,
    pub origin: RecordOrigin,
    pub values: Vec<Value>,
}

/// Everything a buffer held after a launch.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedBuffer {
    /// The records in the order they were reserved.
    pub records: Vec<DecodedRecord>,
    /// Records that did not fit: the output must say so.
    pub dropped_records: u64,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DecodeError {
    #[error("print buffer of {0} bytes is smaller than its {BUFFER_HEADER_BYTES}-byte header")]
    TooSmall(usize),
    #[error("print buffer header claims {claimed} data bytes, but the buffer holds {actual}")]
    CapacityMismatch { claimed: u64, actual: u64 },
    #[error(
        "print record at byte {offset} names format {format_id}, which the kernel does not have"
    )]
    UnknownFormat { offset: u64, format_id: u32 },
    #[error(
        "print record at byte {offset} (format {format_id}) has a {found}-byte payload where \
         its format's arguments take {expected}"
    )]
    PayloadLength {
        offset: u64,
        format_id: u32,
        expected: u32,
        found: u32,
    },
    #[error("print record at byte {offset} runs past the written data")]
    Truncated { offset: u64 },
    #[error("values of type `{0}` cannot be printed from a kernel")]
    Unprintable(Type),
}

/// Resets `buffer`'s header for a launch: nothing written, nothing dropped, the rest
/// of the buffer as data.
pub fn reset_buffer(buffer: &mut [u8]) -> Result<(), DecodeError> {
    let capacity = data_capacity(buffer)?;
    put_u64(buffer, CURSOR_OFFSET, 0);
    put_u64(buffer, CAPACITY_OFFSET, capacity);
    put_u64(buffer, DROPPED_OFFSET, 0);
    put_u64(buffer, FIRST_DROPPED_OFFSET, u64::MAX);
    Ok(())
}

fn data_capacity(buffer: &[u8]) -> Result<u64, DecodeError> {
    buffer
        .len()
        .checked_sub(BUFFER_HEADER_BYTES)
        .map(|n| n as u64)
        .ok_or(DecodeError::TooSmall(buffer.len()))
}

/// Appends one record as a device thread does (the simulator's writer, and the tests'):
/// reserve, then write whole or count a drop. Returns whether the record was written.
/// `values` must match the format's argument types, whose layout is `record_layout`.
pub fn append_record(
    buffer: &mut [u8],
    format_id: u32,
    origin: RecordOrigin,
    record_layout: &RecordLayout,
    values: &[Value],
) -> bool {
    append_payload(buffer, format_id, origin, record_layout, |payload| {
        for (value, offset) in values.iter().zip(&record_layout.offsets) {
            value.write(&mut payload[*offset as usize..]);
        }
    })
}

/// [`append_record`] with the payload written by `write_payload` (handed the record's
/// zeroed payload): the simulator's form, which copies its registers' bytes.
pub fn append_payload(
    buffer: &mut [u8],
    format_id: u32,
    origin: RecordOrigin,
    record_layout: &RecordLayout,
    write_payload: impl FnOnce(&mut [u8]),
) -> bool {
    let size = record_layout.record_bytes();
    let offset = get_u64(buffer, CURSOR_OFFSET);
    put_u64(buffer, CURSOR_OFFSET, offset + size);
    let capacity = get_u64(buffer, CAPACITY_OFFSET);
    if offset + size > capacity {
        put_u64(buffer, DROPPED_OFFSET, get_u64(buffer, DROPPED_OFFSET) + 1);
        let first = get_u64(buffer, FIRST_DROPPED_OFFSET).min(offset);
        put_u64(buffer, FIRST_DROPPED_OFFSET, first);
        return false;
    }
    let start = BUFFER_HEADER_BYTES + offset as usize;
    let record = &mut buffer[start..start + size as usize];
    record[0..4].copy_from_slice(&format_id.to_le_bytes());
    record[4..8].copy_from_slice(&record_layout.payload_len.to_le_bytes());
    record[8..16].copy_from_slice(&origin.block.to_le_bytes());
    record[16..20].copy_from_slice(&origin.thread.to_le_bytes());
    record[20..24].fill(0);
    let payload = &mut record[RECORD_HEADER_BYTES..];
    payload.fill(0);
    write_payload(payload);
    true
}

/// The values of a payload laid out as `record_layout` for arguments of `types` (a
/// panic's message, which the simulator renders at once).
pub fn decode_payload(
    types: &[Type],
    record_layout: &RecordLayout,
    payload: &[u8],
) -> Result<Vec<Value>, DecodeError> {
    if payload.len() < record_layout.payload_len as usize {
        return Err(DecodeError::Truncated { offset: 0 });
    }
    types
        .iter()
        .zip(&record_layout.offsets)
        .map(|(ty, o)| Value::read(ty, &payload[*o as usize..]))
        .collect()
}

/// Reads every whole record of `buffer`. `argument_types(format_id)` gives the types
/// of a format's arguments (the kernel's format table).
pub fn decode<'t>(
    buffer: &[u8],
    argument_types: impl Fn(u32) -> Option<&'t [Type]>,
) -> Result<DecodedBuffer, DecodeError> {
    let actual = data_capacity(buffer)?;
    let capacity = get_u64(buffer, CAPACITY_OFFSET);
    if capacity > actual {
        return Err(DecodeError::CapacityMismatch {
            claimed: capacity,
            actual,
        });
    }
    let end = get_u64(buffer, CURSOR_OFFSET)
        .min(get_u64(buffer, FIRST_DROPPED_OFFSET))
        .min(capacity);
    let data = &buffer[BUFFER_HEADER_BYTES..BUFFER_HEADER_BYTES + end as usize];
    let mut records = Vec::new();
    let mut layouts: Vec<Option<RecordLayout>> = Vec::new();
    let mut offset = 0usize;
    while offset < data.len() {
        let at = offset as u64;
        let header = data
            .get(offset..offset + RECORD_HEADER_BYTES)
            .ok_or(DecodeError::Truncated { offset: at })?;
        let format_id = u32::from_le_bytes(header[0..4].try_into().unwrap());
        let found = u32::from_le_bytes(header[4..8].try_into().unwrap());
        let origin = RecordOrigin {
            block: u64::from_le_bytes(header[8..16].try_into().unwrap()),
            thread: u32::from_le_bytes(header[16..20].try_into().unwrap()),
        };
        let types = argument_types(format_id).ok_or(DecodeError::UnknownFormat {
            offset: at,
            format_id,
        })?;
        // A launch prints with few formats and many records: lay each out once.
        let slot = format_id as usize;
        if layouts.len() <= slot {
            layouts.resize(slot + 1, None);
        }
        if layouts[slot].is_none() {
            layouts[slot] = Some(RecordLayout::new(types).ok_or_else(|| unprintable(types))?);
        }
        let record_layout = layouts[slot].as_ref().expect("laid out above");
        if found != record_layout.payload_len {
            return Err(DecodeError::PayloadLength {
                offset: at,
                format_id,
                expected: record_layout.payload_len,
                found,
            });
        }
        let payload_start = offset + RECORD_HEADER_BYTES;
        let payload = data
            .get(payload_start..payload_start + found as usize)
            .ok_or(DecodeError::Truncated { offset: at })?;
        let values = types
            .iter()
            .zip(&record_layout.offsets)
            .map(|(ty, o)| Value::read(ty, &payload[*o as usize..]))
            .collect::<Result<_, _>>()?;
        records.push(DecodedRecord {
            format_id,
            origin,
            values,
        });
        offset = payload_start + found as usize;
    }
    Ok(DecodedBuffer {
        records,
        dropped_records: get_u64(buffer, DROPPED_OFFSET),
    })
}

fn unprintable(types: &[Type]) -> DecodeError {
    let ty = types
        .iter()
        .find(|t| layout(t).is_none())
        .cloned()
        .unwrap_or(Type::Unit);
    DecodeError::Unprintable(ty)
}

fn get_u64(buffer: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buffer[at..at + 8].try_into().unwrap())
}

fn put_u64(buffer: &mut [u8], at: usize, value: u64) {
    buffer[at..at + 8].copy_from_slice(&value.to_le_bytes());
}
