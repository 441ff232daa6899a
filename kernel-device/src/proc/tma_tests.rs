use super::*;

fn layout_2d(elem: ScalarType, dims: [u64; 2], row_bytes: u64, boxes: [u32; 2]) -> TensorMapLayout {
    TensorMapLayout {
        elem,
        rank: 2,
        global_dims: [dims[0], dims[1], 1, 1, 1],
        global_strides: [row_bytes, 0, 0, 0],
        box_dims: [boxes[0], boxes[1], 1, 1, 1],
        swizzle: Swizzle::None,
        oob_fill: OobFill::Zeros,
        l2_promotion: L2Promotion::None,
    }
}

/// The swizzle as the CUDA programming guide draws it: in each span-sized row of the
/// tile, 16-byte chunk `c` goes to chunk `c ^ (r % n)`, `r` counting 128-byte lines
/// and `n` the span's chunks (8 for 128 bytes; 4 for 64, 2 for 32).
fn guide_swizzle(span: u64, offset: u64) -> u64 {
    let chunks = span / 16;
    let line = offset / 128;
    let chunk = (offset / 16) % chunks;
    let base = offset - chunk * 16;
    base + ((chunk ^ (line % chunks)) * 16)
}

#[test]
fn swizzle_is_the_guides_chunk_permutation_and_a_bijection() {
    for (mode, span) in [(Swizzle::B32, 32), (Swizzle::B64, 64), (Swizzle::B128, 128)] {
        let repeat = mode.repeat_bytes();
        assert_eq!(repeat, span * 8);
        let mut seen = vec![false; 2 * repeat as usize];
        for offset in 0..2 * repeat {
            let got = mode.apply(offset);
            assert_eq!(got, guide_swizzle(span, offset), "{mode:?} at {offset}");
            assert_eq!(got / repeat, offset / repeat, "stays in its repeat");
            assert!(!std::mem::replace(&mut seen[got as usize], true));
        }
    }
    assert_eq!(Swizzle::None.apply(1234), 1234);
    // Line 1 of a 128-byte swizzle: chunks 0,1 trade places; bytes in a chunk keep order.
    assert_eq!(Swizzle::B128.apply(128 + 3), 128 + 16 + 3);
    assert_eq!(Swizzle::B128.apply(7 * 128 + 16 * 5), 7 * 128 + 16 * 2);
}

#[test]
fn a_box_reads_its_window_and_fills_outside_the_tensor() {
    // 37 columns (innermost) x 5 rows of f32, rows padded to 160 bytes.
    let map = layout_2d(ScalarType::F32, [37, 5], 160, [8, 4]);
    map.check(0x1000).unwrap();
    assert_eq!(map.box_bytes(), 8 * 4 * 4);
    let coords = [32i64, -1];
    let got = map.box_elements(&coords);
    assert_eq!(got.len(), 32);
    for row in 0..4i64 {
        for col in 0..8i64 {
            let (x, y) = (coords[0] + col, coords[1] + row);
            let inside = (0..37).contains(&x) && (0..5).contains(&y);
            let global = inside.then(|| (y * 160 + x * 4) as u64);
            let shared = ((row * 8 + col) * 4) as u64;
            assert_eq!(
                got[(row * 8 + col) as usize],
                (global, shared),
                "({row}, {col})"
            );
        }
    }
}

#[test]
fn a_swizzled_box_places_each_element_at_its_swizzled_byte() {
    let mut map = layout_2d(ScalarType::BF16, [64, 16], 128, [64, 8]);
    map.swizzle = Swizzle::B128;
    map.check(0).unwrap();
    let got = map.box_elements(&[0, 8]);
    for (i, (global, shared)) in got.iter().enumerate() {
        let (row, col) = (i as u64 / 64, i as u64 % 64);
        assert_eq!(*global, Some((8 + row) * 128 + col * 2));
        assert_eq!(*shared, guide_swizzle(128, i as u64 * 2));
    }
}

#[test]
fn checks_name_what_is_wrong() {
    let good = layout_2d(ScalarType::BF16, [64, 64], 128, [64, 32]);
    good.check(256).unwrap();
    let err = |map: TensorMapLayout, address: u64| map.check(address).unwrap_err();
    assert!(err(good, 8).contains("not 16-byte aligned"));
    let e = err(layout_2d(ScalarType::BF16, [64, 64], 136, [64, 32]), 0);
    assert!(e.contains("stride of axis 0 is 136 bytes"), "{e}");
    let e = err(layout_2d(ScalarType::BF16, [64, 64], 128, [64, 300]), 0);
    assert!(e.contains("along axis 0 is 300"), "{e}");
    let e = err(layout_2d(ScalarType::BF16, [64, 64], 128, [4, 32]), 0);
    assert!(e.contains("inner extent is 8 bytes"), "{e}");
    let mut wide = good;
    wide.swizzle = Swizzle::B64;
    let e = err(wide, 0);
    assert!(
        e.contains("128 bytes, more than the 64-byte swizzle span"),
        "{e}"
    );
    let e = err(layout_2d(ScalarType::Bool, [64, 64], 128, [16, 1]), 0);
    assert!(e.contains("cannot hold Bool"), "{e}");
    let mut nan = layout_2d(ScalarType::I32, [64, 64], 256, [4, 1]);
    nan.oob_fill = OobFill::NanRequestZeroFma;
    assert!(err(nan, 0).contains("NaN out-of-bounds fill needs a float map"));
    let e = err(layout_2d(ScalarType::BF16, [64, 0], 128, [64, 1]), 0);
    assert!(e.contains("axis 0 has 0 elements"), "{e}");
    let mut six = good;
    six.rank = 6;
    assert!(err(six, 0).contains("1 to 5 axes"));
    let mut far = good;
    far.global_strides[0] = STRIDE_LIMIT;
    assert!(err(far, 0).contains("below 2^40"));
}

#[test]
fn descriptors_round_trip() {
    let mut map = layout_2d(ScalarType::F16, [100, 7], 208, [8, 3]);
    map.swizzle = Swizzle::B32;
    map.oob_fill = OobFill::NanRequestZeroFma;
    map.l2_promotion = L2Promotion::B128;
    let bytes = map.to_descriptor(0xdead_0000);
    assert_eq!(
        TensorMapLayout::from_descriptor(&bytes),
        Some((map, 0xdead_0000))
    );
    assert_eq!(
        TensorMapLayout::from_descriptor(&[0; DESCRIPTOR_BYTES]),
        None
    );
    assert_eq!(map.fill_bytes(), 0x7fff);
}
