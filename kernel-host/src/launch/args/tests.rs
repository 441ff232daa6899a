//! Tests of argument marshalling (slots, scalars at their addresses) and of the
//! launch's argument check and its messages.

use super::*;

fn slice(elem: ScalarType, mutable: bool) -> Type {
    Type::Slice { elem, mutable }
}

#[test]
fn scalars_sit_at_the_slot_address() {
    let a = KernelArg::scalar(-2i32);
    assert_eq!(a.value as u32, (-2i32) as u32);
    assert_eq!(a.value >> 32, 0);
    assert_eq!(KernelArg::scalar(true).value, 1);
    assert_eq!(KernelArg::scalar(1.5f64).value, 1.5f64.to_bits());
    assert_eq!(KernelArg::scalar(1.5f32).value, u64::from(1.5f32.to_bits()));
    assert_eq!(KernelArg::scalar(usize::MAX).value, u64::MAX);
    assert_eq!(KernelArg::scalar(0xABu8).value, 0xAB);
}

#[test]
fn slices_marshal_as_pointer_and_length() {
    let a = [1.0f32, 2.0, 3.0];
    let mut c = vec![0.0f32; 3];
    let mut args = [
        SliceArg::<f32>::into_kernel_arg(&a),
        SliceArgMut::<f32>::into_kernel_arg(&mut c),
        KernelArg::scalar(7u32),
    ];
    assert_eq!(slot_count(&args), 5);
    let mut slots = [std::ptr::null_mut(); 5];
    fill_slots(&mut args, &mut slots);
    assert_eq!(slots[0], &mut args[0].value as *mut u64 as *mut _);
    assert_eq!(slots[1], &mut args[0].len as *mut i64 as *mut _);
    assert_eq!(slots[4], &mut args[2].value as *mut u64 as *mut _);
    assert_eq!(args[0].len, 3);
    match &args[0].kind {
        ArgKind::Host { bytes, .. } => assert_eq!(bytes.len(), 12),
        _ => panic!("expected a host slice"),
    }
}

/// What `check_args` says when it refuses `args`.
fn rejection(params: &[Type], args: &[KernelArg<'_>], device: DeviceId) -> String {
    check_args("k", params, args, device)
        .unwrap_err()
        .to_string()
}

#[test]
fn checks_count_and_types() {
    let params = [
        slice(ScalarType::F32, false),
        slice(ScalarType::F32, true),
        Type::Scalar(ScalarType::U32),
    ];
    let a = vec![0.0f32; 4];
    let mut c = vec![0.0f32; 4];
    let args = [
        SliceArg::<f32>::into_kernel_arg(&a),
        SliceArgMut::<f32>::into_kernel_arg(&mut c),
        KernelArg::scalar(4u32),
    ];
    // One pass also counts the parameter slots (a slice takes two) and sees the
    // host slices.
    assert_eq!(
        check_args("k", &params, &args, DeviceId::Cuda(0, 0)).unwrap(),
        ArgSummary {
            slots: 5,
            host_slices: true
        }
    );

    let err = rejection(&params, &args[..2], DeviceId::Cuda(0, 0));
    assert_eq!(
        err,
        "launch of `k` rejected: the kernel takes 3 argument(s) but 2 were given"
    );

    let b = [0i32; 4];
    let wrong = [
        SliceArg::<i32>::into_kernel_arg(&b),
        KernelArg::scalar(0u8),
        KernelArg::scalar(4u32),
    ];
    let err = rejection(&params, &wrong, DeviceId::Cuda(0, 0));
    assert!(
        err.contains("argument 1 is a host `&[i32]` but the kernel parameter is `&[f32]`"),
        "{err}"
    );

    // A read-only host slice cannot stand for a `&mut` parameter.
    let ro = [
        SliceArg::<f32>::into_kernel_arg(&a),
        SliceArg::<f32>::into_kernel_arg(&a),
        KernelArg::scalar(4u32),
    ];
    let err = rejection(&params, &ro, DeviceId::Cuda(0, 0));
    assert!(err.contains("argument 2"), "{err}");

    // A device array from before a reset of the launch's GPU is refused as such.
    let array = [KernelArg {
        kind: ArgKind::Device {
            elem: kernel_device::ir::Type::Scalar(ScalarType::F32),
            device: DeviceId::Cuda(0, 0),
            mutable: false,
            sim_buffer: None,
            sim_offset: 0,
            allocation: None,
        },
        value: 0x1000,
        len: 4,
    }];
    let params = [slice(ScalarType::F32, false)];
    assert_eq!(
        check_args("k", &params, &array, DeviceId::Cuda(0, 0)).unwrap(),
        ArgSummary {
            slots: 2,
            host_slices: false
        }
    );
    let err = rejection(&params, &array, DeviceId::Cuda(0, 1));
    assert!(
        err.contains("made before `Device::reset()` on CUDA device 0"),
        "{err}"
    );
}

/// Every launch builds and moves one `KernelArg` per argument: the rare kinds' bulk
/// (an N-d view's staging copy) stays behind a box, so that a device array's
/// argument is 96 bytes (it was 136: issue 27).
#[test]
fn an_argument_is_at_most_96_bytes() {
    assert!(
        std::mem::size_of::<KernelArg<'_>>() <= 96,
        "KernelArg grew to {} bytes",
        std::mem::size_of::<KernelArg<'_>>()
    );
}
