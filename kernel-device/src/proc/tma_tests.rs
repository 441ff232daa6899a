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
    assert_eq!(map.fill_bytes(), 0x7ff7);
}

#[test]
fn a_copy_needs_sm_90_and_names_itself_elsewhere() {
    use crate::proc::target::choose_arch;
    assert_eq!(choose_arch(&[TARGET_NEED], (9, 0)).unwrap(), "compute_90");
    let err = choose_arch(&[TARGET_NEED], (8, 9)).unwrap_err();
    assert!(
        err.contains("`cp.async.bulk.tensor` needs compute capability 9.0") && err.contains("8.9"),
        "{err}"
    );
}

/// The H200's tiles (`bench/tma/run.sh`: `tma_check.py` on the PTX of
/// `back/nvvm/tests/tma.rs`, for compute_90 and compute_90a, identical): for each map,
/// the raw bytes of the shared tile one `cp.async.bulk.tensor` load wrote. Each element
/// of the tensor holds `row * 128 + column` (u16, or that value as f32); rows are
/// `stride` bytes apart: a 64 x 16 box of u16 with the 128-byte swizzle at the corner
/// (64, 32) of a 100 x 40 tensor, half of it outside; boxes with the 64-byte and 32-byte
/// swizzles and none; a box half the 128-byte span wide (its rows padded to the span);
/// an f32 NaN fill. (`bench/results/2026-11-29-h200-tmak-tma-cases.txt`.)
const H200_TILES: &str = include_str!("tma_h200_tiles.txt");

#[test]
fn the_model_places_every_byte_where_the_h200_did() {
    let mut cases = 0;
    let mut lines = H200_TILES.lines();
    while let Some(header) = lines.next() {
        let words: Vec<&str> = header.split_whitespace().collect();
        let field = |name: &str, k: usize| -> i64 {
            let at = words.iter().position(|w| *w == name).unwrap();
            words[at + k].parse().unwrap()
        };
        let elem = if field("type", 1) == 7 {
            ScalarType::F32
        } else {
            ScalarType::U16
        };
        let (cols, rows, stride) = (field("dims", 1), field("dims", 2), field("stride", 1));
        let mut map = layout_2d(
            elem,
            [cols as u64, rows as u64],
            stride as u64,
            [field("box", 1) as u32, field("box", 2) as u32],
        );
        map.swizzle = [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128]
            [field("swizzle", 1) as usize];
        if field("oob", 1) == 1 {
            map.oob_fill = OobFill::NanRequestZeroFma;
        }
        map.check(0).unwrap();
        let tile_hex = lines.next().unwrap().strip_prefix("tile ").unwrap();
        let tile: Vec<u8> = (0..tile_hex.len() / 2)
            .map(|i| u8::from_str_radix(&tile_hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        assert_eq!(tile.len() as u64, map.smem_bytes(), "{header}");
        let size = map.elem_bytes() as usize;
        let coords = [field("coords", 1), field("coords", 2)];
        for (i, (global, shared)) in map.box_elements(&coords).into_iter().enumerate() {
            let want: u64 = match global {
                Some(byte) => {
                    let (row, col) = (byte / stride as u64, byte % stride as u64 / size as u64);
                    let value = row * 128 + col;
                    if elem == ScalarType::F32 {
                        u64::from((value as f32).to_bits())
                    } else {
                        value
                    }
                }
                None => map.fill_bytes(),
            };
            let at = shared as usize;
            let mut got = [0u8; 8];
            got[..size].copy_from_slice(&tile[at..at + size]);
            assert_eq!(u64::from_le_bytes(got), want, "{header}: element {i}");
        }
        cases += 1;
    }
    assert!(cases >= 6, "{cases} cases");
}

#[test]
fn a_narrow_swizzled_box_pads_its_rows_to_the_span() {
    // 32 u16s (64 bytes) a row under the 128-byte swizzle: each row at a 128-byte pitch,
    // its four chunks XORed with the row's index (the H200's half-span tile).
    let mut map = layout_2d(ScalarType::U16, [100, 40], 208, [32, 16]);
    map.swizzle = Swizzle::B128;
    assert_eq!(map.box_bytes(), 1024);
    assert_eq!(map.smem_row_pitch(), 128);
    assert_eq!(map.smem_bytes(), 2048);
    let elements = map.box_elements(&[0, 0]);
    for row in 0..16u64 {
        for chunk in 0..4u64 {
            let (_, shared) = elements[(row * 32 + chunk * 8) as usize];
            assert_eq!(
                shared,
                row * 128 + 16 * (chunk ^ (row % 8)),
                "row {row} chunk {chunk}"
            );
        }
    }
    // Unswizzled, and swizzled at full span, the box is dense.
    map.swizzle = Swizzle::None;
    assert_eq!((map.smem_row_pitch(), map.smem_bytes()), (64, 1024));
    let mut full = layout_2d(ScalarType::U16, [100, 40], 208, [64, 16]);
    full.swizzle = Swizzle::B128;
    assert_eq!(full.smem_bytes(), full.box_bytes());
}

#[test]
fn a_tile_must_be_aligned_to_its_swizzles_repeat() {
    for (swizzle, align) in [
        (Swizzle::None, 128),
        (Swizzle::B32, 256),
        (Swizzle::B64, 512),
        (Swizzle::B128, 1024),
    ] {
        assert_eq!(swizzle.tile_align(), align);
        assert_eq!(swizzle.check_tile_address(3 * align), Ok(()));
        let err = swizzle.check_tile_address(align + 16).unwrap_err();
        assert!(
            err.contains(&format!("is not {align}-byte aligned"))
                && err.contains(&format!("shared_array_aligned::<A, {align}>()")),
            "{err}"
        );
    }
    assert!(check_shared_align(1024).is_ok() && check_shared_align(16).is_ok());
    for bad in [0, 8, 48, 2048] {
        assert!(check_shared_align(bad).is_err(), "{bad}");
    }
}

#[test]
fn coordinates_follow_the_h200s_rules() {
    // The run's faults: loads at 10 and 90 u16s and 4 u16s (20, 180, 8 bytes); stores
    // at (-8, -3), (-8, 0), (0, -3), (-64, -5). The cases that ran: loads and stores at
    // 0, 8, 64 and 88 u16s, past the end too.
    let map = layout_2d(ScalarType::U16, [100, 40], 208, [24, 5]);
    for inner in [10, 90, 4, -3] {
        let err = map.check_load_coords(&[inner, 2]).unwrap_err();
        assert!(err.contains(&format!("is {}", inner * 2)), "{err}");
        assert!(map.check_store_coords(&[inner, 2]).is_err());
    }
    for ok in [[0, 0], [8, 2], [64, 32], [88, 36], [96, 39]] {
        assert_eq!(map.check_load_coords(&ok), Ok(()));
        assert_eq!(map.check_store_coords(&ok), Ok(()));
    }
    for negative in [[-8, -3], [-8, 0], [0, -3], [-64, -5]] {
        assert_eq!(map.check_load_coords(&negative), Ok(()));
        let err = map.check_store_coords(&negative).unwrap_err();
        assert!(err.contains("must not start before the tensor"), "{err}");
    }
    let err = map.check_store_coords(&[0, -3]).unwrap_err();
    assert!(err.contains("axis 0 starts at -3"), "{err}");
}

/// The store-map rule holds exactly where a store writes only the view's elements:
/// random views (element sizes, row lengths, padded row strides, boxes and places),
/// each store's written offsets against the view's element offsets, counted here.
#[test]
fn a_store_map_is_accepted_exactly_when_its_stores_stay_in_the_view() {
    let seed = std::env::var("CUDAJIT_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    let mut rng = fastrand::Rng::with_seed(seed);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..400 {
        let elem = [S::U8, S::BF16, S::F32, S::F64][rng.usize(..4)];
        let size = u64::from(elem.size_bytes());
        let cols = rng.u64(1..80);
        let rows = rng.u64(1..6);
        // A row stride of the row's bytes rounded up to 16, plus some padding.
        let stride = (cols * size).div_ceil(16) * 16 + 16 * rng.u64(0..3);
        let box_cols = (16 / size as u32) * rng.u32(1..4);
        let map = layout_2d(elem, [cols, rows], stride, [box_cols, rng.u32(1..4)]);
        let view: std::collections::HashSet<u64> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| r * stride + c * size))
            .collect();
        let mut stays = true;
        for _ in 0..4 {
            let inner = i64::from(box_cols) * rng.i64(0..4);
            let coords = [inner, rng.i64(0..rows as i64 + 1)];
            for (global, _) in map.stored_elements(&coords) {
                stays &= global.is_none_or(|g| view.contains(&g));
            }
        }
        // A view whose rows end off the 16-byte boundary is refused even when the
        // places drawn here missed the tail: a store at the last box reaches it.
        let tail = (cols * size) % 16 != 0;
        assert_eq!(
            map.check_store_rows().is_ok(),
            !tail,
            "seed {seed}: {elem:?} x {cols}"
        );
        assert!(
            !tail || map.check_store_rows().unwrap_err().contains("axis 1"),
            "seed {seed}"
        );
        if tail {
            refused += 1;
            let last_box = (cols as i64 - 1) / i64::from(box_cols) * i64::from(box_cols);
            let leaks = map
                .stored_elements(&[last_box, 0])
                .iter()
                .any(|(g, _)| g.is_some_and(|g| !view.contains(&g)));
            assert!(
                leaks,
                "seed {seed}: a refused view whose stores stay inside"
            );
        } else {
            accepted += 1;
            assert!(stays, "seed {seed}: an accepted view written outside");
        }
    }
    assert!(accepted > 0 && refused > 0, "seed {seed}");
}
