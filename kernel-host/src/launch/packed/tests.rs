//! The packed parameters against Rust's own `repr(C)` layout, which places
//! each field at the next offset aligned to its size, as the driver places `.param`s.

use std::mem::{offset_of, size_of};

use kernel_device::ir::{ScalarType, Type};

use super::{PackedLayout, PackedParams, PACKED_ARGS};
use crate::device::DeviceId;
use crate::launch::args::{ArgKind, KernelArg};

/// The parameters of `k(x: &[f32], a: u8, b: i16, flag: bool, c: i32, d: f64, e: u8,
/// out: &mut [f64])`, then the panic record, as a C struct lays them out.
#[repr(C)]
struct Expected {
    x_ptr: u64,
    x_len: i64,
    a: u8,
    b: i16,
    flag: bool,
    c: i32,
    d: f64,
    e: u8,
    out_ptr: u64,
    out_len: i64,
    record: u64,
}

fn device_arg(ptr: u64, len: i64, elem: ScalarType, mutable: bool) -> KernelArg<'static> {
    KernelArg {
        kind: ArgKind::Device {
            elem: Type::Scalar(elem),
            device: DeviceId::Cuda(0, 1),
            mutable,
            sim_buffer: None,
            sim_offset: 0,
            allocation: None,
        },
        value: ptr,
        len,
    }
}

#[test]
fn packed_parameters_sit_where_a_c_struct_puts_them() {
    for _ in 0..100 {
        let (x_ptr, x_len) = (fastrand::u64(..), fastrand::i64(0..1 << 40));
        let (a, b, flag) = (fastrand::u8(..), fastrand::i16(..), fastrand::bool());
        let (c, d, e) = (
            fastrand::i32(..),
            fastrand::f64() * 1e6 - 5e5,
            fastrand::u8(..),
        );
        let (out_ptr, out_len, record) = (fastrand::u64(..), fastrand::i64(..), fastrand::u64(..));
        let args = [
            device_arg(x_ptr, x_len, ScalarType::F32, false),
            KernelArg::scalar(a),
            KernelArg::scalar(b),
            KernelArg::scalar(flag),
            KernelArg::scalar(c),
            KernelArg::scalar(d),
            KernelArg::scalar(e),
            device_arg(out_ptr, out_len, ScalarType::F64, true),
        ];
        let packed = PackedParams::pack(&args, record).expect("scalars and arrays pack");
        let bytes = packed.bytes();
        assert_eq!(bytes.len(), size_of::<Expected>());
        let field = |offset: usize, value: &[u8]| {
            assert_eq!(
                &bytes[offset..offset + value.len()],
                value,
                "at offset {offset}"
            );
        };
        field(offset_of!(Expected, x_ptr), &x_ptr.to_le_bytes());
        field(offset_of!(Expected, x_len), &x_len.to_le_bytes());
        field(offset_of!(Expected, a), &a.to_le_bytes());
        field(offset_of!(Expected, b), &b.to_le_bytes());
        field(offset_of!(Expected, flag), &[u8::from(flag)]);
        field(offset_of!(Expected, c), &c.to_le_bytes());
        field(offset_of!(Expected, d), &d.to_le_bytes());
        field(offset_of!(Expected, e), &e.to_le_bytes());
        field(offset_of!(Expected, out_ptr), &out_ptr.to_le_bytes());
        field(offset_of!(Expected, out_len), &out_len.to_le_bytes());
        field(offset_of!(Expected, record), &record.to_le_bytes());
    }
}

#[test]
fn only_scalars_and_device_arrays_pack() {
    let host = [1.0f32, 2.0];
    let args = [KernelArg::scalar(3u32), KernelArg::host(&host)];
    assert!(PackedParams::pack(&args, 0).is_none());
    // The most arguments the memo keeps, each a slice, fill the buffer exactly.
    let most: Vec<_> = (0..crate::launch::memo::MEMO_ARGS as u64)
        .map(|i| device_arg(i, 1, ScalarType::U8, false))
        .collect();
    let packed = PackedParams::pack(&most, 7).expect("fits");
    assert_eq!(packed.bytes().len(), 8 * super::PACKED_WORDS);
}

/// One random argument of a kind the memo keeps: a scalar of any size or a device array.
fn random_arg() -> KernelArg<'static> {
    match fastrand::u8(0..7) {
        0 => KernelArg::scalar(fastrand::u8(..)),
        1 => KernelArg::scalar(fastrand::i16(..)),
        2 => KernelArg::scalar(fastrand::bool()),
        3 => KernelArg::scalar(fastrand::u32(..)),
        4 => KernelArg::scalar(fastrand::f32()),
        5 => KernelArg::scalar(fastrand::f64() - 0.5),
        _ => device_arg(
            fastrand::u64(..),
            fastrand::i64(0..1 << 40),
            ScalarType::F32,
            fastrand::bool(),
        ),
    }
}

/// The layout's packing (a memo hit's: two stores per argument at known offsets)
/// against the slot-by-slot packing, byte for byte, over random mixes of up to the
/// most arguments, each packed over a buffer left dirty by another launch.
#[test]
fn packing_at_the_remembered_layout_equals_packing_slot_by_slot() {
    fn check<const N: usize>() {
        let mut dirty = PackedParams::new();
        for _ in 0..200 {
            let args: [KernelArg<'static>; N] = std::array::from_fn(|_| random_arg());
            let record = fastrand::u64(..);
            let expected = PackedParams::pack(&args, record).expect("memo kinds pack");
            let layout = PackedLayout::of(&args).expect("memo kinds have a layout");
            // A buffer another launch filled (all ones), as a reused buffer would be.
            let ones: [KernelArg<'static>; PACKED_ARGS] =
                std::array::from_fn(|_| device_arg(u64::MAX, -1, ScalarType::U8, true));
            dirty.fill_at(&PackedLayout::of(&ones).unwrap(), &ones, u64::MAX);
            dirty.fill_at(&layout, &args, record);
            assert_eq!(dirty.bytes(), expected.bytes(), "layout {layout:?}");
        }
    }
    check::<0>();
    check::<1>();
    check::<2>();
    check::<3>();
    check::<5>();
    check::<PACKED_ARGS>();
}

#[test]
fn only_memo_kinds_within_the_buffer_have_a_layout() {
    let host = [1.0f32, 2.0];
    assert!(PackedLayout::of(&[KernelArg::scalar(1u8), KernelArg::host(&host)]).is_none());
    let too_many: Vec<_> = (0..=PACKED_ARGS).map(|_| KernelArg::scalar(1u8)).collect();
    assert!(PackedLayout::of(&too_many).is_none());
}
