//! The simulator's tensor-core steps against references computed without its lane
//! mapping: whole-matrix products in f64 (i64 for integers) from random inputs.

use super::*;
use crate::proc::mma::{
    ldmatrix_row_start, matrices_of, needs_trans, tile_offset, TileLayout, MMA_COMBOS,
};

/// A random element of `elem` as (storage bits, exact value).
pub(super) fn random_element(rng: &mut fastrand::Rng, elem: MmaElem) -> (u64, f64) {
    match elem {
        MmaElem::F16 => {
            let v = half::f16::from_f32(rng.f32() * 4.0 - 2.0);
            (u64::from(v.to_bits()), v.to_f64())
        }
        MmaElem::BF16 => {
            let v = half::bf16::from_f32(rng.f32() * 4.0 - 2.0);
            (u64::from(v.to_bits()), v.to_f64())
        }
        // Any f32: the tensor core reads its top 19 bits.
        MmaElem::Tf32 => {
            let v = rng.f32() * 4.0 - 2.0;
            (of_f32(v), f32::from_bits(v.to_bits() & !0x1fff) as f64)
        }
        MmaElem::F32 => {
            let v = rng.f32() * 4.0 - 2.0;
            (of_f32(v), v as f64)
        }
        MmaElem::F64 => {
            let v = rng.f64() * 4.0 - 2.0;
            (of_f64(v), v)
        }
        MmaElem::I8 => {
            let v = rng.i8(..);
            (u64::from(v as u8), v as f64)
        }
        MmaElem::U8 => {
            let v = rng.u8(..);
            (u64::from(v), v as f64)
        }
        MmaElem::I32 => {
            let v = rng.i32(-1 << 20..1 << 20);
            (u64::from(v as u32), v as f64)
        }
        MmaElem::E4M3 => {
            let v = crate::e4m3::from_f32(rng.f32() * 4.0 - 2.0);
            (u64::from(v.to_bits()), v.to_f64())
        }
    }
}

/// A random `rows x cols` matrix (row-major values) and its lanes' fragments.
fn random_fragment(
    rng: &mut fastrand::Rng,
    combo: MmaCombo,
    role: MmaRole,
    elem: MmaElem,
) -> (Vec<f64>, Vec<LaneValues>) {
    let (rows, cols) = combo.shape.dims(role);
    let cells: Vec<(u64, f64)> = (0..rows * cols)
        .map(|_| random_element(rng, elem))
        .collect();
    let mut frag = vec![[0u64; LANES]; fragment_len(combo.shape, role)];
    for lane in 0..LANES {
        for (i, values) in frag.iter_mut().enumerate() {
            let (r, c) = element_position(combo.shape, role, lane, i);
            values[lane] = cells[r * cols + c].0;
        }
    }
    (cells.iter().map(|c| c.1).collect(), frag)
}

#[test]
fn mma_matches_a_whole_matrix_reference_for_every_combination() {
    let mut rng = fastrand::Rng::with_seed(23);
    for combo in MMA_COMBOS {
        for _ in 0..20 {
            let (m_len, n_len, k_len) = combo.shape.mnk();
            let (a, fa) = random_fragment(&mut rng, *combo, MmaRole::A, combo.input);
            let (b, fb) = random_fragment(&mut rng, *combo, MmaRole::B, combo.input);
            let (c, fc) = random_fragment(&mut rng, *combo, MmaRole::Acc, combo.acc);
            // Poison: the result must replace every slot.
            let d = mma_sync(*combo, u32::MAX, &fa, &fb, &fc).unwrap();
            for lane in 0..LANES {
                for (i, values) in d.iter().enumerate() {
                    let (m, n) = element_position(combo.shape, MmaRole::Acc, lane, i);
                    let exact: f64 = c[m * n_len + n]
                        + (0..k_len)
                            .map(|k| a[m * k_len + k] * b[k * n_len + n])
                            .sum::<f64>();
                    let bits = values[lane];
                    match combo.acc {
                        // i8 x i8 x 32 + 2^20 stays far inside i32: exact.
                        MmaElem::I32 => assert_eq!(bits as u32 as i32 as f64, exact, "{combo:?}"),
                        MmaElem::F64 => {
                            let got = f64::from_bits(bits);
                            assert!(
                                (got - exact).abs() <= 1e-14 * (1.0 + exact.abs()),
                                "{combo:?}: {got} vs {exact}"
                            );
                        }
                        MmaElem::F32 => assert_eq!(
                            f32::from_bits(bits as u32),
                            exact as f32,
                            "{combo:?} ({m}, {n})"
                        ),
                        MmaElem::F16 => {
                            assert_eq!(bits as u16, f16_nearest_even(exact).to_bits(), "{combo:?}")
                        }
                        other => panic!("no accumulator {other:?}"),
                    }
                    assert!(m < m_len);
                }
            }
        }
    }
}

#[test]
fn integer_mma_wraps_like_the_hardware() {
    let combo = MMA_COMBOS
        .iter()
        .find(|c| c.input == MmaElem::U8)
        .copied()
        .unwrap();
    let a = vec![[255u64; LANES]; 16];
    let b = vec![[255u64; LANES]; 8];
    let c = vec![[u64::from(i32::MAX as u32); LANES]; 4];
    let d = mma_sync(combo, u32::MAX, &a, &b, &c).unwrap();
    let want = (i32::MAX).wrapping_add(32 * 255 * 255);
    assert!(d.iter().all(|v| v.iter().all(|&x| x as u32 as i32 == want)));
}

#[test]
fn a_partial_warp_is_reported_not_computed() {
    let combo = MMA_COMBOS[0];
    let a = vec![[0u64; LANES]; 8];
    let b = vec![[0u64; LANES]; 4];
    let c = vec![[0u64; LANES]; 4];
    let err = mma_sync(combo, 0x0000_ffff, &a, &b, &c).unwrap_err();
    assert_eq!(
        err,
        MmaMisuse::PartialWarp {
            what: "mma_sync",
            active: 0xffff
        }
    );
    assert!(
        err.to_string().contains("16 of the warp's 32 lanes"),
        "{err}"
    );
    assert!(ldmatrix(4, false, 0x7fff_ffff, &[[0; 8]; 32]).is_err());
}

/// `ldmatrix` from a tile through each lane's row start (`proc::mma`) delivers every
/// fragment element the ownership table names, and `stmatrix` writes the rows back.
#[test]
fn ldmatrix_fills_fragments_by_the_ownership_table_and_stmatrix_inverts_it() {
    let ld = 48;
    let tile: Vec<u8> = (0..ld * 64 * 4).map(|i| (i * 7 + i / 251) as u8).collect();
    for combo in MMA_COMBOS {
        for role in [MmaRole::A, MmaRole::B, MmaRole::Acc] {
            let elem = if role == MmaRole::Acc {
                combo.acc
            } else {
                combo.input
            };
            let Some(count) = matrices_of(combo.shape, role, elem) else {
                continue;
            };
            for layout in [TileLayout::Row, TileLayout::Col] {
                let trans = needs_trans(role, layout);
                if trans && elem.bytes() != 2 {
                    continue;
                }
                let bytes = elem.bytes();
                let (r0, c0) = (16, 32 / bytes);
                let element_at = |offset: usize| -> u64 {
                    let at = offset * bytes;
                    let mut raw = [0u8; 8];
                    raw[..bytes].copy_from_slice(&tile[at..at + bytes]);
                    u64::from_le_bytes(raw)
                };
                let rows: Vec<MatrixRow> = (0..8 * count)
                    .map(|lane| {
                        let (r, c) =
                            ldmatrix_row_start(combo.shape, role, elem, layout, lane).unwrap();
                        let at = tile_offset(layout, ld, r0 + r, c0 + c) * bytes;
                        std::array::from_fn(|u| {
                            u16::from_le_bytes([tile[at + 2 * u], tile[at + 2 * u + 1]])
                        })
                    })
                    .collect();
                let regs = ldmatrix(count, trans, u32::MAX, &rows).unwrap();
                let frag = unpack(elem, &regs);
                assert_eq!(frag.len(), fragment_len(combo.shape, role));
                for lane in 0..LANES {
                    for (i, values) in frag.iter().enumerate() {
                        let (r, c) = element_position(combo.shape, role, lane, i);
                        let want = element_at(tile_offset(layout, ld, r0 + r, c0 + c));
                        assert_eq!(
                            values[lane], want,
                            "{combo:?} {role:?} {layout:?} lane {lane} {i}"
                        );
                    }
                }
                assert_eq!(pack(elem, &frag), regs);
                assert_eq!(stmatrix(trans, u32::MAX, &regs).unwrap(), rows);
            }
        }
    }
}

/// Compiles each `(source, kernel, sms)` through the NVVM writer, libnvvm and ptxas
/// for each listed sm, handing every PTX to `check`; says why and does nothing where
/// `CUDAJIT_NVVM_PATH` / `CUDAJIT_PTXAS` are not set.
pub(super) fn through_ptxas(kernels: &[(String, &str, Vec<u32>)], check: &dyn Fn(&str, u32, &str)) {
    let Some((nvvm, ptxas)) = crate::nvvm::test_toolchain() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for (n, (source, kernel, sms)) in kernels.iter().enumerate() {
        let text = crate::back::nvvm::write_string(
            &crate::back::sim::tests::module(source, kernel),
            &Default::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
        for &sm in sms {
            let options = crate::nvvm::CompileOptions {
                arch: format!("compute_{sm}"),
                ..Default::default()
            };
            let ptx = nvvm
                .compile(&text, &options)
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            check(kernel, sm, &ptx);
            let path = tmp.path().join(format!("{n}_{sm}.ptx"));
            std::fs::write(&path, &ptx).unwrap();
            let out = std::process::Command::new(&ptxas)
                .arg(format!("-arch=sm_{sm}"))
                .arg("-o")
                .arg(tmp.path().join(format!("{n}_{sm}.cubin")))
                .arg(&path)
                .output()
                .expect("run ptxas");
            assert!(
                out.status.success(),
                "ptxas: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

mod kernels {
    //! The register-level intrinsics in kernels, end to end: source → IR → the
    //! simulator (against a whole-matrix reference) and → NVVM IR → libnvvm → ptxas.

    use super::*;
    use crate::back::sim::tests::{buffer_of, module, read_back, shape, slice};
    use crate::back::sim::{run, Options};

    const SOURCE: &str = r#"
#[kernel]
fn mma_tile(a: &[u32], b: &[u32], c: &[f32], d: &mut [f32]) {
    let l = lane_id() as usize;
    let (d0, d1, d2, d3) = mma_m16n8k16_bf16_f32(
        a[4 * l], a[4 * l + 1], a[4 * l + 2], a[4 * l + 3],
        b[2 * l], b[2 * l + 1],
        c[4 * l], c[4 * l + 1], c[4 * l + 2], c[4 * l + 3],
    );
    d[4 * l] = d0;
    d[4 * l + 1] = d1;
    d[4 * l + 2] = d2;
    d[4 * l + 3] = d3;
}

#[kernel]
fn dmma_tile(a: &[f64], b: &[f64], c: &[f64], d: &mut [f64]) {
    let l = lane_id() as usize;
    let (d0, d1) = mma_m8n8k4_f64_f64(a[l], b[l], c[2 * l], c[2 * l + 1]);
    d[2 * l] = d0;
    d[2 * l + 1] = d1;
}

#[kernel]
fn ldmatrix_tile(a: &[bf16], b: &[bf16], d: &mut [f32]) {
    let sa = shared_array::<[bf16; 256]>();
    let sb = shared_array::<[bf16; 128]>();
    let l = lane_id() as usize;
    for j in 0..8 {
        sa[l * 8 + j] = a[l * 8 + j];
    }
    for j in 0..4 {
        sb[l * 4 + j] = b[l * 4 + j];
    }
    sync_threads();
    let q = l / 8;
    let r = l % 8;
    let (a0, a1, a2, a3) = ldmatrix_x4(sa, (r + 8 * (q % 2)) * 16 + 8 * (q / 2));
    let (b0, b1) = ldmatrix_x2_trans(sb, (l % 16) * 8);
    let (d0, d1, d2, d3) = mma_m16n8k16_bf16_f32(a0, a1, a2, a3, b0, b1, 0.0, 0.0, 0.0, 0.0);
    d[4 * l] = d0;
    d[4 * l + 1] = d1;
    d[4 * l + 2] = d2;
    d[4 * l + 3] = d3;
}

#[kernel]
fn matrix_round_trip(a: &[u16], out: &mut [u16]) {
    let sa = shared_array::<[u16; 256]>();
    let so = shared_array::<[u16; 256]>();
    let l = lane_id() as usize;
    for j in 0..8 {
        sa[l * 8 + j] = a[l * 8 + j];
    }
    sync_threads();
    let (r0, r1, r2, r3) = ldmatrix_x4_trans(sa, l * 8);
    stmatrix_x4_trans(so, l * 8, r0, r1, r2, r3);
    sync_threads();
    for j in 0..8 {
        out[l * 8 + j] = so[l * 8 + j];
    }
}

#[kernel]
fn misaligned_ldmatrix(out: &mut [u32]) {
    let sa = shared_array::<[u16; 512]>();
    let l = lane_id() as usize;
    out[l] = ldmatrix_x1(sa, l * 8 + 1);
}

#[kernel]
fn divergent_dmma(a: &[f64], d: &mut [f64]) {
    let l = lane_id() as usize;
    if l < 16 {
        let (d0, d1) = mma_m8n8k4_f64_f64(a[l], a[l], a[l], a[l]);
        d[l] = d0 + d1;
    }
}
"#;

    /// Lane-major registers (`regs[lane * count + j]`) of a role's fragment of `cells`
    /// (row-major storage bits), packed as `proc::mma` says.
    fn lane_registers(combo: MmaCombo, role: MmaRole, elem: MmaElem, cells: &[u64]) -> Vec<u64> {
        let (_, cols) = combo.shape.dims(role);
        let frag: Vec<LaneValues> = (0..fragment_len(combo.shape, role))
            .map(|i| {
                std::array::from_fn(|lane| {
                    let (r, c) = element_position(combo.shape, role, lane, i);
                    cells[r * cols + c]
                })
            })
            .collect();
        let regs: Vec<LaneValues> = if registers_of(combo.shape, role, elem) == frag.len() {
            frag
        } else {
            pack(elem, &frag)
                .iter()
                .map(|r| std::array::from_fn(|lane| u64::from(r[lane])))
                .collect()
        };
        (0..LANES)
            .flat_map(|lane| regs.iter().map(move |r| r[lane]).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn a_bf16_mma_kernel_on_the_simulator_matches_the_f64_reference() {
        let combo = MMA_COMBOS[0];
        let m = module(SOURCE, "mma_tile");
        let mut rng = fastrand::Rng::with_seed(7);
        let a: Vec<(u64, f64)> = (0..256)
            .map(|_| random_element(&mut rng, MmaElem::BF16))
            .collect();
        let b: Vec<(u64, f64)> = (0..128)
            .map(|_| random_element(&mut rng, MmaElem::BF16))
            .collect();
        let c: Vec<(u64, f64)> = (0..128)
            .map(|_| random_element(&mut rng, MmaElem::F32))
            .collect();
        let bits = |v: &[(u64, f64)]| v.iter().map(|x| x.0).collect::<Vec<_>>();
        let ra: Vec<u32> = lane_registers(combo, MmaRole::A, MmaElem::BF16, &bits(&a))
            .iter()
            .map(|&x| x as u32)
            .collect();
        let rb: Vec<u32> = lane_registers(combo, MmaRole::B, MmaElem::BF16, &bits(&b))
            .iter()
            .map(|&x| x as u32)
            .collect();
        let rc: Vec<f32> = lane_registers(combo, MmaRole::Acc, MmaElem::F32, &bits(&c))
            .iter()
            .map(|&x| f32::from_bits(x as u32))
            .collect();
        let (ba, bb, bc, bd) = (
            buffer_of(&ra),
            buffer_of(&rb),
            buffer_of(&rc),
            buffer_of(&vec![f32::NAN; 128]),
        );
        let args = [
            slice(ScalarType::U32, &ba, ra.len(), false),
            slice(ScalarType::U32, &bb, rb.len(), false),
            slice(ScalarType::F32, &bc, rc.len(), false),
            slice(ScalarType::F32, &bd, 128, true),
        ];
        run(&m, "mma_tile", &shape(1, 32), &args, &Options::default()).expect("runs");
        let d: Vec<f32> = read_back(&bd, 128);
        for lane in 0..LANES {
            for i in 0..4 {
                let (row, col) = element_position(combo.shape, MmaRole::Acc, lane, i);
                let exact = c[row * 8 + col].1
                    + (0..16)
                        .map(|k| a[row * 16 + k].1 * b[k * 8 + col].1)
                        .sum::<f64>();
                assert_eq!(
                    d[lane * 4 + i],
                    exact as f32,
                    "lane {lane} element {i} = ({row}, {col})"
                );
            }
        }
    }

    #[test]
    fn a_dmma_kernel_is_exact_on_small_integers_and_divergence_is_reported() {
        let m = module(SOURCE, "dmma_tile");
        // A[m][k] = m + k, B[k][n] = k - n, C[m][n] = m * n: every lane's registers.
        let (mut ra, mut rb, mut rc) = (vec![0.0; 32], vec![0.0; 32], vec![0.0; 64]);
        let combo = MMA_COMBOS[4];
        for lane in 0..LANES {
            let (am, ak) = element_position(combo.shape, MmaRole::A, lane, 0);
            ra[lane] = (am + ak) as f64;
            let (bk, bn) = element_position(combo.shape, MmaRole::B, lane, 0);
            rb[lane] = bk as f64 - bn as f64;
            for i in 0..2 {
                let (cm, cn) = element_position(combo.shape, MmaRole::Acc, lane, i);
                rc[2 * lane + i] = (cm * cn) as f64;
            }
        }
        let (ba, bb, bc, bd) = (
            buffer_of(&ra),
            buffer_of(&rb),
            buffer_of(&rc),
            buffer_of(&[f64::NAN; 64]),
        );
        let args = [
            slice(ScalarType::F64, &ba, 32, false),
            slice(ScalarType::F64, &bb, 32, false),
            slice(ScalarType::F64, &bc, 64, false),
            slice(ScalarType::F64, &bd, 64, true),
        ];
        run(&m, "dmma_tile", &shape(1, 32), &args, &Options::default()).expect("runs");
        let d: Vec<f64> = read_back(&bd, 64);
        for lane in 0..LANES {
            for i in 0..2 {
                let (r, c) = element_position(combo.shape, MmaRole::Acc, lane, i);
                let want = (r * c) as f64
                    + (0..4)
                        .map(|k| ((r + k) as f64) * (k as f64 - c as f64))
                        .sum::<f64>();
                assert_eq!(d[2 * lane + i], want, "({r}, {c})");
            }
        }
        let m = module(SOURCE, "divergent_dmma");
        let bd = buffer_of(&[0.0f64; 32]);
        let args = [
            slice(ScalarType::F64, &ba, 32, false),
            slice(ScalarType::F64, &bd, 32, true),
        ];
        let fault = run(
            &m,
            "divergent_dmma",
            &shape(1, 32),
            &args,
            &Options::default(),
        )
        .expect_err("an mma in divergent code is reported");
        let text = fault.to_string();
        assert!(text.contains("mma_sync"), "{text}");
    }

    #[test]
    fn ldmatrix_fed_mma_and_a_stmatrix_round_trip_on_the_simulator() {
        let m = module(SOURCE, "ldmatrix_tile");
        let mut rng = fastrand::Rng::with_seed(11);
        let a: Vec<(u64, f64)> = (0..256)
            .map(|_| random_element(&mut rng, MmaElem::BF16))
            .collect();
        let b: Vec<(u64, f64)> = (0..128)
            .map(|_| random_element(&mut rng, MmaElem::BF16))
            .collect();
        let ha: Vec<u16> = a.iter().map(|x| x.0 as u16).collect();
        let hb: Vec<u16> = b.iter().map(|x| x.0 as u16).collect();
        let (ba, bb, bd) = (buffer_of(&ha), buffer_of(&hb), buffer_of(&[f32::NAN; 128]));
        let args = [
            slice(ScalarType::BF16, &ba, 256, false),
            slice(ScalarType::BF16, &bb, 128, false),
            slice(ScalarType::F32, &bd, 128, true),
        ];
        run(
            &m,
            "ldmatrix_tile",
            &shape(1, 32),
            &args,
            &Options::default(),
        )
        .expect("runs");
        let d: Vec<f32> = read_back(&bd, 128);
        let combo = MMA_COMBOS[0];
        for lane in 0..LANES {
            for i in 0..4 {
                let (row, col) = element_position(combo.shape, MmaRole::Acc, lane, i);
                let exact: f64 = (0..16).map(|k| a[row * 16 + k].1 * b[k * 8 + col].1).sum();
                assert_eq!(d[lane * 4 + i], exact as f32, "({row}, {col})");
            }
        }
        let m = module(SOURCE, "matrix_round_trip");
        let tile: Vec<u16> = (0..256).map(|i| (i * 37 + 5) as u16).collect();
        let (bt, bo) = (buffer_of(&tile), buffer_of(&[0u16; 256]));
        let args = [
            slice(ScalarType::U16, &bt, 256, false),
            slice(ScalarType::U16, &bo, 256, true),
        ];
        run(
            &m,
            "matrix_round_trip",
            &shape(1, 32),
            &args,
            &Options::default(),
        )
        .expect("runs");
        assert_eq!(read_back::<u16>(&bo, 256), tile);
        let m = module(SOURCE, "misaligned_ldmatrix");
        let bo = buffer_of(&[0u32; 32]);
        let args = [slice(ScalarType::U32, &bo, 32, true)];
        let fault = run(
            &m,
            "misaligned_ldmatrix",
            &shape(1, 32),
            &args,
            &Options::default(),
        )
        .expect_err("a misaligned row is reported");
        assert!(fault.to_string().contains("16-byte aligned"), "{fault}");
    }

    /// The same kernels through the NVVM writer, libnvvm and ptxas for sm_80 and sm_90
    /// (`stmatrix`: sm_90 only).
    #[test]
    fn the_mma_kernels_compile_for_sm_80_and_sm_90() {
        let kernels: Vec<(String, &str, Vec<u32>)> = [
            "mma_tile",
            "dmma_tile",
            "ldmatrix_tile",
            "matrix_round_trip",
        ]
        .into_iter()
        .map(|k| {
            let sms = if k == "matrix_round_trip" {
                vec![90]
            } else {
                vec![80, 90]
            };
            (SOURCE.to_string(), k, sms)
        })
        .collect();
        super::through_ptxas(&kernels, &|kernel, sm, ptx| {
            let instruction = match kernel {
                "matrix_round_trip" => "stmatrix.sync.aligned",
                _ => "mma.sync.aligned.m",
            };
            assert!(ptx.contains(instruction), "{kernel} sm_{sm}:\n{ptx}");
        });
    }
}

/// `x` rounded once to the nearest `f16`, ties to even, computed on its own: the
/// spacing of f16 values at `x` (2^(e - 10) in binade 2^e, 2^-24 below the normals)
/// divides exactly, so `round_ties_even` is the one rounding. (Not `half`'s `from_f64`,
/// which rounds to `f32` first and can land on a tie that the exact value is not on.)
pub(super) fn f16_nearest_even(x: f64) -> half::f16 {
    if !x.is_finite() || x.abs() >= 65520.0 {
        return half::f16::from_f64(x);
    }
    let binade = x.abs().log2().floor().max(-14.0) as i32;
    let quantum = 2f64.powi(binade - 10);
    half::f16::from_f64((x / quantum).round_ties_even() * quantum)
}

#[test]
fn the_f16_reference_rounds_once() {
    // 1 + 2^-11 + 2^-40: above the tie between 1 and 1 + 2^-10, by less than f32 sees.
    let above = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(f16_nearest_even(above).to_f64(), 1.0 + 2f64.powi(-10));
    assert_eq!(f16_nearest_even(1.0 + 2f64.powi(-11)).to_f64(), 1.0);
    assert_eq!(
        f16_nearest_even(3.0 * 2f64.powi(-25)).to_f64(),
        2f64.powi(-23)
    );
}
