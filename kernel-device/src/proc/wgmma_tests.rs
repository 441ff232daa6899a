//! The wgmma rules against independent statements of them: CUTLASS's accumulator
//! layout (`CLayout_64xN`), its swizzle functors, the PTX ISA's descriptor bit fields.

use super::*;
use crate::ir::ScalarType;
use crate::proc::intrinsics::{Param, Ret};
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
        major: WgmmaMajor::K,
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
        major: WgmmaMajor::K,
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
        // bf16/f16, tf32 (a 128-byte row is 32 of K), 8-bit (128 of K), e4m3 alike.
        for (elem_bytes, cols) in [
            (2u64, 64u64),
            (2, 128),
            (4, 32),
            (4, 64),
            (2, 16),
            (1, 128),
            (1, 256),
            (1, 32),
        ] {
            let per = swizzle.row_bytes() / elem_bytes;
            if cols % per != 0 {
                continue;
            }
            let t = TileLayout {
                rows: 64,
                cols,
                elem_bytes,
                swizzle,
                major: WgmmaMajor::K,
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
        major: WgmmaMajor::K,
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
    // Six forms of bf16 and of f16, one of e4m3, two of tf32, four integer pairs, for
    // each N.
    assert_eq!(WGMMA_MMA_INTRINSICS.len(), 19 * ROW_NS.len());
    let names: HashSet<&str> = WGMMA_MMA_INTRINSICS.iter().map(|r| r.name).collect();
    assert_eq!(names.len(), WGMMA_MMA_INTRINSICS.len());
    for row in WGMMA_MMA_INTRINSICS {
        let Intrinsic::Wgmma(WgmmaOp::Mma(c)) = row.intrinsic else {
            panic!("{}", row.name)
        };
        assert!(n_allowed(c.input, u32::from(c.n)));
        assert_eq!(
            c.input_b == c.input,
            !row.name.contains("i8_u8") && !row.name.contains("u8_i8")
        );
        assert_eq!(row.name, c.intrinsic_name());
        assert_eq!(row.sig.params.len(), c.operands());
        let a_regs = c.a == WgmmaA::Registers;
        assert_eq!(row.name.contains("_rs"), a_regs, "{}", row.name);
        assert_eq!(c.operands(), if a_regs { 6 } else { 3 } + c.acc_len());
        let Ret::Tuple(ret) = row.sig.ret else {
            panic!("{}", row.name)
        };
        let acc = if c.input.is_int8() {
            ScalarType::I32
        } else {
            ScalarType::F32
        };
        assert!(ret.len() == c.acc_len() && ret.iter().all(|&t| t == acc));
        assert!(row.sig.params[c.operands() - c.acc_len()..]
            .iter()
            .all(|&p| p == Param::Scalar(acc)));
    }
    let c = WgmmaCombo::ss(128, MmaElem::BF16);
    assert_eq!(
        c.instruction(),
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"
    );
    assert!(!n_allowed(MmaElem::BF16, 12) && !n_allowed(MmaElem::BF16, 264));
    assert!(n_allowed(MmaElem::BF16, 24) && n_allowed(MmaElem::Tf32, 40));
    assert_eq!(k_of(MmaElem::Tf32), 8);
    assert_eq!(k_of(MmaElem::I8), 32);
}

/// The PTX ISA's integer shapes (`.m64nNk32` with `.s8`/`.u8`): n8, n16, n24, n32, then
/// every 16 up to n256; and the instructions name both input types.
#[test]
fn integer_wgmmas_have_the_isa_s_n_and_both_signednesses() {
    let int_ns: Vec<u32> = (8..=256).filter(|&n| n_allowed(MmaElem::I8, n)).collect();
    let isa: Vec<u32> = [8, 16, 24, 32]
        .into_iter()
        .chain((48..=256).step_by(16))
        .collect();
    assert_eq!(int_ns, isa);
    assert!(!n_allowed(MmaElem::U8, 40) && !n_allowed(MmaElem::U8, 56));
    let su = WgmmaCombo {
        input_b: MmaElem::U8,
        ..WgmmaCombo::ss(64, MmaElem::I8)
    };
    assert_eq!(
        su.instruction(),
        "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.u8"
    );
    assert_eq!(su.intrinsic_name(), "wgmma_m64n64k32_i32_i8_u8");
    assert_eq!(su.immediates(), "");
    let tf32_rs = WgmmaCombo {
        a: WgmmaA::Registers,
        ..WgmmaCombo::ss(32, MmaElem::Tf32)
    };
    assert_eq!(
        tf32_rs.instruction(),
        "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32"
    );
    assert_eq!(tf32_rs.intrinsic_name(), "wgmma_m64n32k8_f32_tf32_rs");
    assert_eq!(tf32_rs.immediates(), "1, 1");
}

/// The PTX ISA's "Register fragment: matrix A" of `.m64nNk8` (tf32), as CUTLASS states
/// it (`ALayout_64x8`: `((4, 8, 4), (2, 2)) : ((64, 1, 16), (8, 256))`, a column-major
/// index `m + 64 k`). Every element once.
#[test]
fn tf32_a_fragment_is_cutlass_alayout_64x8_and_a_bijection() {
    let combo = WgmmaCombo {
        a: WgmmaA::Registers,
        ..WgmmaCombo::ss(64, MmaElem::Tf32)
    };
    assert_eq!(combo.a_elements(), 4);
    let mut seen = HashSet::new();
    for thread in 0..WARPGROUP_THREADS {
        let (t0, t1, t2) = (thread % 4, (thread / 4) % 8, thread / 32);
        for e in 0..4 {
            let (v0, v1) = (e % 2, e / 2);
            let index = 64 * t0 + t1 + 16 * t2 + 8 * v0 + 256 * v1;
            let at = combo.a_element(thread, e);
            assert_eq!((index % 64, index / 64), at, "thread {thread} a{e}");
            assert!(seen.insert(at));
        }
    }
    assert_eq!(seen.len(), 64 * 8);
}

/// The PTX ISA's "Register fragment: matrix A" of `.m64nNk16` (16-bit types), stated in
/// its own terms: warp `w`, `groupID = lane >> 2`, `threadID_in_group = lane % 4`;
/// elements a0..a7 at row `16 w + groupID (+ 8 for a2, a3, a6, a7)`, column
/// `2 threadID_in_group + (i & 1) (+ 8 for a4..a7)`. Every element once.
#[test]
fn a_fragment_ownership_is_the_isa_s_and_a_bijection() {
    let mut seen = HashSet::new();
    for thread in 0..WARPGROUP_THREADS {
        let (warp, lane) = (thread / 32, thread % 32);
        let (group, in_group) = (lane >> 2, lane % 4);
        for e in 0..2 * A_REGISTERS {
            let row = 16 * warp + group + if matches!(e, 2 | 3 | 6 | 7) { 8 } else { 0 };
            let col = 2 * in_group + (e & 1) + if e >= 4 { 8 } else { 0 };
            assert_eq!(a_position(thread, e), (row, col), "thread {thread} a{e}");
            // The S accumulator register that becomes this element, for each K step.
            for step in 0..4 {
                let (r, c) = acc_position(thread, acc_register_of_a(step, e));
                assert_eq!((r, c), (row, 16 * step + col));
            }
            assert!(seen.insert((row, col)));
        }
    }
    assert_eq!(seen.len(), 64 * 16);
}

#[test]
fn mn_major_descriptors_read_each_element_where_the_tile_put_it() {
    for swizzle in Swizzle::ALL {
        let per = swizzle.row_bytes() / 2;
        for (rows, cols) in [(64u64, 64u64), (128, 32), (256, 16), (64, 128)] {
            let t = TileLayout {
                rows,
                cols,
                elem_bytes: 2,
                swizzle,
                major: WgmmaMajor::MN,
            };
            if rows % per != 0 {
                assert!(t.check().is_err());
                continue;
            }
            t.check().unwrap();
            let offsets: HashSet<u64> = (0..rows)
                .flat_map(|r| (0..cols).map(move |c| t.offset(r, c)))
                .collect();
            assert_eq!(offsets.len() as u64, rows * cols, "{t:?}");
            assert!(offsets.iter().all(|&o| o < rows * cols * 2 && o % 2 == 0));
            let base = 8192;
            // One instruction's operand: every row of the tile (an N of up to 256), 16 of K.
            for k0 in (0..cols).step_by(16) {
                let d = Descriptor::decode(t.descriptor(base, 0, k0).encode());
                for r in 0..rows {
                    for kk in 0..16 {
                        assert_eq!(
                            d.operand_address(WgmmaMajor::MN, r, kk, 2),
                            base + t.offset(r, k0 + kk),
                            "{t:?} k0 {k0} element ({r}, {kk})"
                        );
                    }
                }
            }
        }
    }
}

/// V of attention: a `[seq][64]` row-major bf16 matrix as a TMA box with 128-byte
/// swizzle writes it (16-byte chunk `j` of row `k` at chunk `j ^ (k % 8)`), read as
/// the MN-major B of `P V` (K = seq, N = 64): the descriptor's fields and each
/// element's address.
#[test]
fn a_row_major_v_tile_is_an_mn_major_b_operand() {
    let t = TileLayout {
        rows: 64,
        cols: 128,
        elem_bytes: 2,
        swizzle: Swizzle::B128,
        major: WgmmaMajor::MN,
    };
    let tma = |n: u64, k: u64| k * 128 + ((n / 8) ^ (k % 8)) * 16 + (n % 8) * 2;
    for k0 in (0..128).step_by(16) {
        let d = t.descriptor(0, 0, k0);
        assert_eq!(
            (d.start, d.stride, d.swizzle),
            (k0 * 128, 1024, Swizzle::B128)
        );
        for n in 0..64 {
            for kk in 0..16 {
                assert_eq!(d.mn_major_element_address(n, kk, 2), tma(n, k0 + kk));
                assert_eq!(t.offset(n, k0 + kk), tma(n, k0 + kk));
            }
        }
    }
    // D = 128: two such blocks of 64 columns, the second `leading` bytes on.
    let wide = TileLayout { rows: 128, ..t };
    let d = wide.descriptor(0, 0, 0);
    assert_eq!(d.leading, 128 * 128);
    assert_eq!(
        d.mn_major_element_address(64 + 3, 5, 2),
        128 * 128 + tma(3, 5)
    );
}

#[test]
fn forms_have_their_transpose_immediates_and_names() {
    let imm = |a, b| {
        WgmmaCombo {
            a,
            b,
            ..WgmmaCombo::ss(64, MmaElem::BF16)
        }
        .immediates()
    };
    assert_eq!(
        imm(WgmmaA::Shared(WgmmaMajor::K), WgmmaMajor::MN),
        "1, 1, 0, 1"
    );
    assert_eq!(
        imm(WgmmaA::Shared(WgmmaMajor::MN), WgmmaMajor::K),
        "1, 1, 1, 0"
    );
    assert_eq!(imm(WgmmaA::Registers, WgmmaMajor::MN), "1, 1, 1");
    assert_eq!(imm(WgmmaA::Registers, WgmmaMajor::K), "1, 1, 0");
    let rs = WgmmaCombo {
        a: WgmmaA::Registers,
        b: WgmmaMajor::MN,
        ..WgmmaCombo::ss(128, MmaElem::F16)
    };
    assert_eq!(rs.intrinsic_name(), "wgmma_m64n128k16_f32_f16_rs_trans_b");
    assert!(missing_form_hint("wgmma_m64n64k32_f32_e4m3_trans_b").is_some());
    assert!(missing_form_hint("wgmma_m64n64k16_f32_bf16_rs_trans_a").is_some());
    assert!(missing_form_hint("wgmma_m64n64k16_f32_bf16_rs").is_none());
    for name in [
        "wgmma_m64n64k8_f32_tf32_trans_b",
        "wgmma_m64n64k32_i32_i8_u8_trans_a",
        "wgmma_m64n64k32_i32_u8_u8_rs",
        "wgmma_m64n64k32_s32_s8_u8",
        "wgmma_m64n64k32_f32_i8",
        "wgmma_m64n40k32_i32_i8_i8",
    ] {
        assert!(missing_form_hint(name).is_some(), "{name}");
    }
    for name in ["wgmma_m64n64k8_f32_tf32_rs", "wgmma_m64n64k32_i32_i8_u8"] {
        assert!(missing_form_hint(name).is_none(), "{name}");
    }
}

#[test]
fn packs_round_to_nearest_even_low_half_first() {
    assert_eq!(pack_pair(MmaElem::BF16, 1.0, -2.0), 0xC000_3F80);
    assert_eq!(pack_pair(MmaElem::F16, 1.0, -2.0), 0xC000_3C00);
    // 1 + 2^-8 is halfway between two bf16: even (1.0); 1 + 3 * 2^-8 rounds up.
    let tie = 1.0 + 2f32.powi(-8);
    let up = 1.0 + 3.0 * 2f32.powi(-8);
    assert_eq!(pack_pair(MmaElem::BF16, tie, up), (0x3F82 << 16) | 0x3F80);
    assert_eq!(
        pack_instruction(MmaElem::BF16),
        "cvt.rn.bf16x2.f32 $0, $2, $1;"
    );
}
