//! Tensor maps built on the simulator (no driver): the row-major API against the
//! driver-order layout, and each check's `Err`.

use half::bf16;
use kernel_device::proc::tma::TensorMapLayout;

use super::*;
use crate::device::Device;

fn nd<T: DeviceScalar + Default, const N: usize>(shape: [usize; N]) -> DeviceNd<T, N> {
    let device = Device::simulator().unwrap();
    let len = shape.iter().product();
    let array = DeviceArray::from_slice_on(&device, &vec![T::default(); len]).unwrap();
    DeviceNd::from_array(array, shape).unwrap()
}

fn swizzled(swizzle: Swizzle) -> TensorMapOptions {
    TensorMapOptions {
        swizzle,
        ..TensorMapOptions::default()
    }
}

fn detail<T: DeviceScalar, const N: usize>(result: Result<TensorMap<T, N>>) -> String {
    match result {
        Err(Error::InvalidTensorMap { detail }) => detail,
        other => panic!("expected an invalid map, got {other:?}"),
    }
}

#[test]
fn a_row_major_map_is_the_drivers_innermost_first_layout() {
    let rows_by_cols = nd::<bf16, 2>([64, 96]);
    let map = TensorMap::tiled(&rows_by_cols, [32, 64], swizzled(Swizzle::B128)).unwrap();
    assert_eq!(map.shape(), [64, 96]);
    assert_eq!(map.box_shape(), [32, 64]);
    assert_eq!(map.box_bytes(), 32 * 64 * 2);
    let layout = map.layout();
    assert_eq!(&layout.global_dims[..2], &[96, 64]);
    assert_eq!(layout.global_strides[0], 96 * 2);
    assert_eq!(&layout.box_dims[..2], &[64, 32]);
    // The simulator's parameter bytes are the descriptor of that layout.
    assert_eq!(
        TensorMapLayout::from_descriptor(&map.bytes().0),
        Some((*layout, 0))
    );
    assert!(map.sim_buffer().is_some());
    assert_eq!(std::mem::align_of::<TensorMapBytes>(), 64);

    let volume = nd::<f32, 3>([4, 6, 8]);
    let map = TensorMap::tiled(&volume, [2, 3, 4], TensorMapOptions::default()).unwrap();
    assert_eq!(&map.layout().global_strides[..2], &[8 * 4, 6 * 8 * 4]);
    let flat = DeviceArray::from_slice_on(&Device::simulator().unwrap(), &[0u32; 100]).unwrap();
    let map = TensorMap::tiled_1d(&flat, 8, TensorMapOptions::default()).unwrap();
    assert_eq!((map.shape(), map.box_bytes()), ([100], 32));
}

#[test]
fn each_check_names_what_is_wrong() {
    let tile = nd::<bf16, 2>([64, 96]);
    let e = detail(TensorMap::tiled(
        &tile,
        [32, 65],
        TensorMapOptions::default(),
    ));
    assert!(e.contains("inner extent is 130 bytes"), "{e}");
    let e = detail(TensorMap::tiled(&tile, [32, 72], swizzled(Swizzle::B128)));
    assert!(
        e.contains("144 bytes, more than the 128-byte swizzle span"),
        "{e}"
    );
    let e = detail(TensorMap::tiled(
        &tile,
        [300, 64],
        TensorMapOptions::default(),
    ));
    assert!(e.contains("along axis 0 is 300"), "{e}");
    let bytes = nd::<u8, 2>([10, 10]);
    let e = detail(TensorMap::tiled(
        &bytes,
        [2, 16],
        TensorMapOptions::default(),
    ));
    assert!(e.contains("stride of axis 0 is 10 bytes"), "{e}");
    let flags = nd::<bool, 1>([64]);
    let e = detail(TensorMap::tiled(&flags, [16], TensorMapOptions::default()));
    assert!(e.contains("cannot hold Bool"), "{e}");
    let ints = nd::<i32, 1>([64]);
    let nan = TensorMapOptions {
        oob_fill: OobFill::NanRequestZeroFma,
        ..TensorMapOptions::default()
    };
    let e = detail(TensorMap::tiled(&ints, [16], nan));
    assert!(
        e.contains("NaN out-of-bounds fill needs a float map"),
        "{e}"
    );
    // A padded view that reaches past its array.
    let e = detail(TensorMap::with_strides(
        tile.array(),
        [64, 96],
        [256, 2],
        [8, 8],
        TensorMapOptions::default(),
    ));
    assert!(e.contains("reaches byte 16320; the array has 12288"), "{e}");
    let e = detail(TensorMap::with_strides(
        tile.array(),
        [64, 48],
        [192, 4],
        [8, 8],
        TensorMapOptions::default(),
    ));
    assert!(e.contains("last axis must be dense"), "{e}");
}

#[test]
fn a_store_map_of_a_view_whose_rows_end_off_16_bytes_is_refused_naming_it() {
    // 40 rows of 100 bf16 (200 bytes) at a 208-byte pitch: a store would write
    // elements 100..104 of each row, outside the view.
    let mut padded = nd::<bf16, 2>([40, 104]);
    let store = |array: &mut DeviceArray<bf16>, cols: u64| {
        TensorMapMut::with_strides(
            array,
            [40, cols],
            [208, 2],
            [16, 64],
            swizzled(Swizzle::B128),
        )
        .map(|map| map.shape())
    };
    match store(padded.array_mut(), 100) {
        Err(Error::InvalidTensorMap { detail }) => {
            assert!(
                detail.contains("rows (axis 1) of a multiple of 16 bytes"),
                "{detail}"
            );
            assert!(
                detail.contains("rows of 100 elements (200 bytes)"),
                "{detail}"
            );
            assert!(detail.contains("8 bytes after each row"), "{detail}");
        }
        other => panic!("expected the view refused, got {other:?}"),
    }
    // The same view is a fine load map (a load reads the tensor's extent exactly), and
    // the padded rows are a fine store map.
    let load = TensorMap::with_strides(
        padded.array(),
        [40, 100],
        [208, 2],
        [16, 64],
        swizzled(Swizzle::B128),
    );
    assert_eq!(load.unwrap().shape(), [40, 100]);
    assert_eq!(store(padded.array_mut(), 104).unwrap(), [40, 104]);
    // A flat array whose end is off the boundary: the store would write past it.
    let device = Device::simulator().unwrap();
    let mut flat = DeviceArray::from_slice_on(&device, &[0u16; 100]).unwrap();
    let e = TensorMapMut::tiled_1d(&mut flat, 64, TensorMapOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("rows of 100 elements (200 bytes)"),
        "{e}"
    );
    let mut whole = nd::<f32, 2>([8, 12]);
    let map = TensorMapMut::tiled(&mut whole, [4, 4], TensorMapOptions::default()).unwrap();
    // It reads as a load map of the same layout.
    let as_load: &TensorMap<f32, 2> = &map;
    assert_eq!(as_load.box_bytes(), 64);
}
