//! The wgmma rules against independent statements of them: CUTLASS's accumulator
//! layout (`CLayout_64xN`), its swizzle functors, the PTX ISA's descriptor bit fields.

use super::*;
use std::collections::HashSet;

#[test]
fn accumulator_ownership_is_cutlass_clayout_and_a_bijection() {
    for n in [8usize, 16, 64, 128, 256] {
        let mut seen = HashSet::new();
        for thread in 0..WARPGROUP_THREADS {
            for i in 0..n / 2 {
                let (r, c) = acc_position(thread, i);
                // CUTLASS SM90 CLayout_64xN: ((4, 8, 4), (2, 2, N/8)) : ((128, 1, 16),
                // (64, 8, 512)), a column-major index m + 64 n.
                let (t0, t1, t2) = (thread % 4, (thread / 4) % 8, thread / 32);
                let (v0, v1, v2) = (i % 2, (i / 2) % 2, i / 4);
                let index = 128 * t0 + t1 + 16 * t2 + 64 * v0 + 8 * v1 + 512 * v2;
                assert_eq!((index % 64, index / 64), (r, c), "thread {thread} i {i}");
                assert!(r < 64 && c < n);
                assert!(seen.insert((r, c)));
            }
        }
        assert_eq!(seen.len(), 64 * n);
    }
}

#[test]
fn descriptor_fields_round_trip_and_match_cutlass() {
    let d = Descriptor {
        start: 0x1_2340,
        leading: 128,
        stride: 1024,
        swizzle: Swizzle::B128,
    };
    assert_eq!(Descriptor::decode(d.encode()), d);
    // CUTLASS `make_gmma_desc` for a K-major SW128 bf16 tile at shared address 0:
    // stride 1024 bytes (64 in 16-byte units) in bits 32..46, layout type 1 in 62..64.
    let cutlass = (64u64 << 32) | (1u64 << 62);
    let ours = TileLayout {
        rows: 64,
        cols: 64,
        elem_bytes: 2,
        swizzle: Swizzle::B128,
    }
    .descriptor(0, 0, 0)
    .encode();
    assert_eq!(ours, cutlass);
    for s in Swizzle::ALL {
        assert_eq!(Swizzle::from_mode(s.mode()), s);
        assert_eq!(Swizzle::from_bytes(bytes_of(s)), Some(s));
    }
}

fn bytes_of(s: Swizzle) -> u32 {
    match s {
        Swizzle::None => 0,
        other => other.row_bytes() as u32,
    }
}

#[test]
fn swizzle_128b_xors_the_chunk_with_the_row() {
    // A 64-column bf16 tile, SW128: row r holds its 16-byte chunk j at chunk j ^ (r % 8).
    let t = TileLayout {
        rows: 16,
        cols: 64,
        elem_bytes: 2,
        swizzle: Swizzle::B128,
    };
    for r in 0..16 {
        for c in 0..64 {
            let chunk = (c / 8) ^ (r % 8);
            assert_eq!(t.offset(r, c), r * 128 + chunk * 16 + (c % 8) * 2);
        }
    }
}

#[test]
fn descriptors_read_each_element_where_the_tile_put_it() {
    for swizzle in Swizzle::ALL {
        for (elem_bytes, cols) in [(2u64, 64u64), (2, 128), (4, 32), (2, 16)] {
            let per = swizzle.row_bytes() / elem_bytes;
            if cols % per != 0 {
                continue;
            }
            let t = TileLayout {
                rows: 64,
                cols,
                elem_bytes,
                swizzle,
            };
            t.check().unwrap();
            let size = t.rows * t.cols * elem_bytes;
            let offsets: HashSet<u64> = (0..t.rows)
                .flat_map(|r| (0..t.cols).map(move |c| t.offset(r, c)))
                .collect();
            assert_eq!(offsets.len() as u64, t.rows * t.cols, "{t:?}");
            assert!(offsets.iter().all(|&o| o < size && o % elem_bytes == 0));
            let k = 32 / elem_bytes;
            let base = 4096;
            for row0 in (0..t.rows).step_by(8) {
                for k0 in (0..cols).step_by(k as usize) {
                    let d = Descriptor::decode(t.descriptor(base, row0, k0).encode());
                    for r in 0..8 {
                        for kk in 0..k {
                            assert_eq!(
                                d.element_address(r, kk, elem_bytes),
                                base + t.offset(row0 + r, k0 + kk),
                                "{t:?} block ({row0}, {k0}) element ({r}, {kk})"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn tiles_too_small_or_ragged_are_refused() {
    let t = |rows, cols, swizzle| TileLayout {
        rows,
        cols,
        elem_bytes: 2,
        swizzle,
    };
    assert!(t(64, 64, Swizzle::B128).check().is_ok());
    assert!(t(60, 64, Swizzle::B128).check().is_err());
    assert!(t(64, 32, Swizzle::B128)
        .check()
        .unwrap_err()
        .contains("64 columns"));
    assert!(t(64, 16, Swizzle::B32).check().is_ok());
}

#[test]
fn rows_name_their_combination_and_take_n_over_2_accumulators() {
    // bf16, f16 and e4m3 rows for each N.
    assert_eq!(WGMMA_MMA_INTRINSICS.len(), 3 * ROW_NS.len());
    for row in WGMMA_MMA_INTRINSICS {
        let Intrinsic::Wgmma(WgmmaOp::Mma(c)) = row.intrinsic else {
            panic!("{}", row.name)
        };
        assert!(n_allowed(u32::from(c.n)));
        assert_eq!(row.name, c.intrinsic_name());
        assert_eq!(row.sig.params.len(), 3 + c.acc_len());
        let Ret::Tuple(ret) = row.sig.ret else {
            panic!("{}", row.name)
        };
        assert!(ret.len() == c.acc_len() && ret.iter().all(|&t| t == ScalarType::F32));
    }
    let c = WgmmaCombo {
        n: 128,
        input: MmaElem::BF16,
    };
    assert_eq!(
        c.instruction(),
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"
    );
    assert!(!n_allowed(12) && !n_allowed(264) && n_allowed(24));
    assert_eq!(k_of(MmaElem::Tf32), 8);
}
