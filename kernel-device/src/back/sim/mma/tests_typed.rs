//! The typed fragment API (`FragA`/`FragB`/`Acc`, `mma_sync`, loads, stores,
//! `ldmatrix`, `row_col`) in `#[kernel]`s, end to end on the simulator for every
//! `mma.sync` combination against an f64 (integers: exact) whole-matrix reference,
//! with poisoned outputs; and through libnvvm + ptxas where they are set.

use super::tests::{random_element, through_ptxas};
use super::*;
use crate::back::sim::tests::{buffer_of, module, read_back, shape, slice};
use crate::back::sim::{run, Options};
use crate::proc::mma::MMA_COMBOS;

/// A one-warp tile product `D = A B + C` of `combo` through the typed API: A, B, C, D
/// row-major in global memory, loaded and stored with `load_row` / `store_row`.
fn tile_kernel(combo: MmaCombo) -> String {
    let (s, t, c) = (
        combo.shape.name(),
        combo.input.rust_name(),
        combo.acc.rust_name(),
    );
    let (ts, cs) = (combo.input.storage(), combo.acc.storage());
    let (m, n, k) = combo.shape.mnk();
    format!(
        "#[kernel]
fn typed_tile(a: &[{ts}], b: &[{ts}], c: &[{cs}], d: &mut [{cs}]) {{
    let fa = FragA::<{s}, {t}>::load_row(a, {k}, 0, 0);
    let fb: FragB<{s}, {t}> = FragB::<{s}, {t}>::load_row(b, {n}, 0, 0);
    let mut acc = Acc::<{s}, {c}>::load_row(c, {n}, 0, 0);
    mma_sync(&fa, &fb, &mut acc);
    acc.store_row(d, {n}, 0, 0);
    let _ = {m};
}}
"
    )
}

fn bytes_of(elem: MmaElem, bits: &[u64]) -> Vec<u8> {
    let size = elem.bytes();
    bits.iter()
        .flat_map(|b| b.to_le_bytes()[..size].to_vec())
        .collect()
}

/// The value of storage bits of `elem` (as the GPU would print it).
fn value_of(elem: MmaElem, bits: u64) -> f64 {
    match elem {
        MmaElem::F16 => half::f16::from_bits(bits as u16).to_f64(),
        MmaElem::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        MmaElem::Tf32 | MmaElem::F32 => f32::from_bits(bits as u32) as f64,
        MmaElem::F64 => f64::from_bits(bits),
        MmaElem::I8 => bits as u8 as i8 as f64,
        MmaElem::U8 => bits as u8 as f64,
        MmaElem::I32 => bits as u32 as i32 as f64,
        MmaElem::E4M3 => crate::e4m3::from_bits(bits as u8).to_f64(),
    }
}

/// The simulator's documented accumulation: exact products summed in f64 and rounded
/// once to the accumulator (f64 DMMA: within a few ulps).
fn rounded(elem: MmaElem, exact: f64) -> f64 {
    match elem {
        MmaElem::F16 => super::tests::f16_nearest_even(exact).to_f64(),
        MmaElem::F32 => exact as f32 as f64,
        _ => exact,
    }
}

fn random_matrix(rng: &mut fastrand::Rng, elem: MmaElem, len: usize) -> (Vec<u64>, Vec<f64>) {
    (0..len).map(|_| random_element(rng, elem)).unzip()
}

/// Runs `kernel` (parameters a, b, c, d of the combination) on random inputs and
/// checks `D = A B + C` on every element.
fn check_product(combo: MmaCombo, source: &str, kernel: &str) {
    let m = module(source, kernel);
    let (rows, cols, depth) = combo.shape.mnk();
    let mut rng = fastrand::Rng::with_seed(34 + combo.shape as u64);
    let (a_bits, a) = random_matrix(&mut rng, combo.input, rows * depth);
    let (b_bits, b) = random_matrix(&mut rng, combo.input, depth * cols);
    let (c_bits, c) = random_matrix(&mut rng, combo.acc, rows * cols);
    // Poison: every output element must be written.
    let poison = vec![0xffu8; rows * cols * combo.acc.bytes()];
    let (ba, bb, bc, bd) = (
        buffer_of(&bytes_of(combo.input, &a_bits)),
        buffer_of(&bytes_of(combo.input, &b_bits)),
        buffer_of(&bytes_of(combo.acc, &c_bits)),
        buffer_of(&poison),
    );
    let (ts, cs) = (combo.input.storage(), combo.acc.storage());
    let args = [
        slice(ts, &ba, a.len(), false),
        slice(ts, &bb, b.len(), false),
        slice(cs, &bc, c.len(), false),
        slice(cs, &bd, rows * cols, true),
    ];
    run(&m, kernel, &shape(1, 32), &args, &Options::default())
        .unwrap_or_else(|e| panic!("{combo:?}: {e}"));
    let out: Vec<u8> = read_back(&bd, poison.len());
    let size = combo.acc.bytes();
    for r in 0..rows {
        for col in 0..cols {
            let exact = c[r * cols + col]
                + (0..depth)
                    .map(|k| a[r * depth + k] * b[k * cols + col])
                    .sum::<f64>();
            let at = (r * cols + col) * size;
            let mut raw = [0u8; 8];
            raw[..size].copy_from_slice(&out[at..at + size]);
            let got = value_of(combo.acc, u64::from_le_bytes(raw));
            let want = rounded(combo.acc, exact);
            let tolerance = if combo.acc == MmaElem::F64 {
                1e-13 * (1.0 + exact.abs())
            } else {
                0.0
            };
            assert!(
                (got - want).abs() <= tolerance,
                "{combo:?} ({r}, {col}): got {got}, want {want}"
            );
        }
    }
}

#[test]
fn the_typed_api_multiplies_every_combination_like_the_f64_reference() {
    for combo in MMA_COMBOS {
        check_product(*combo, &tile_kernel(*combo), "typed_tile");
    }
}

/// A bf16 tile through shared memory and `ldmatrix` (A `.x4`, B a `.x4.trans` pair
/// covering n 0..16), an epilogue by `row_col` with element indexing and `len()`.
const LDMATRIX_SOURCE: &str = r#"
#[kernel]
fn typed_ldmatrix(a: &[bf16], b: &[bf16], c: &[f32], d: &mut [f32]) {
    let sa = shared_array::<[bf16; 256]>();
    let sb = shared_array::<[bf16; 256]>();
    let l = lane_id() as usize;
    for j in 0..8 {
        sa[l * 8 + j] = a[l * 8 + j];
        sb[l * 8 + j] = b[l * 8 + j];
    }
    sync_threads();
    let fa = FragA::<M16N8K16, bf16>::ldmatrix_row(sa, 16, 0, 0);
    let (b_lo, b_hi) = FragB::<M16N8K16, bf16>::ldmatrix_pair_row(sb, 16, 0, 0);
    let mut acc = [Acc::<M16N8K16, f32>::zero(); 2];
    for h in 0..2 {
        acc[h] = Acc::<M16N8K16, f32>::load_row(c, 16, 0, 8 * h);
    }
    mma_sync(&fa, &b_lo, &mut acc[0]);
    mma_sync(&fa, &b_hi, &mut acc[1]);
    for h in 0..2 {
        for i in 0..acc[h].len() {
            let (row, col) = acc[h].row_col(i);
            d[row * 16 + 8 * h + col] = acc[h][i];
        }
    }
}
"#;

#[test]
fn ldmatrix_pairs_and_a_row_col_epilogue_match_the_reference() {
    let combo = MMA_COMBOS[0];
    let m = module(LDMATRIX_SOURCE, "typed_ldmatrix");
    let mut rng = fastrand::Rng::with_seed(5);
    let (a_bits, a) = random_matrix(&mut rng, MmaElem::BF16, 256);
    let (b_bits, b) = random_matrix(&mut rng, MmaElem::BF16, 256);
    let (c_bits, c) = random_matrix(&mut rng, MmaElem::F32, 256);
    let (ba, bb, bc, bd) = (
        buffer_of(&bytes_of(MmaElem::BF16, &a_bits)),
        buffer_of(&bytes_of(MmaElem::BF16, &b_bits)),
        buffer_of(&bytes_of(MmaElem::F32, &c_bits)),
        buffer_of(&[f32::NAN; 256]),
    );
    let args = [
        slice(ScalarType::BF16, &ba, 256, false),
        slice(ScalarType::BF16, &bb, 256, false),
        slice(ScalarType::F32, &bc, 256, false),
        slice(ScalarType::F32, &bd, 256, true),
    ];
    run(
        &m,
        "typed_ldmatrix",
        &shape(1, 32),
        &args,
        &Options::default(),
    )
    .expect("runs");
    let d: Vec<f32> = read_back(&bd, 256);
    for r in 0..16 {
        for n in 0..16 {
            let exact = c[r * 16 + n] + (0..16).map(|k| a[r * 16 + k] * b[k * 16 + n]).sum::<f64>();
            assert_eq!(d[r * 16 + n], exact as f32, "{combo:?} ({r}, {n})");
        }
    }
}

/// The one-warp example at the top of docs/tensor_cores.md, as written there.
fn doc_example() -> String {
    let doc = include_str!("../../../../../docs/tensor_cores.md");
    let start = doc
        .find("#[kernel]\nfn tile_product")
        .expect("the doc's example");
    let end = start + doc[start..].find("\n}\n").expect("its end") + 3;
    doc[start..end].to_string()
}

#[test]
fn the_guide_s_example_kernel_runs_as_documented() {
    let m = module(&doc_example(), "tile_product");
    let mut rng = fastrand::Rng::with_seed(3);
    let (a_bits, a) = random_matrix(&mut rng, MmaElem::BF16, 256);
    let (b_bits, b) = random_matrix(&mut rng, MmaElem::BF16, 128);
    let (ba, bb, bc) = (
        buffer_of(&bytes_of(MmaElem::BF16, &a_bits)),
        buffer_of(&bytes_of(MmaElem::BF16, &b_bits)),
        buffer_of(&[f32::NAN; 128]),
    );
    let args = [
        slice(ScalarType::BF16, &ba, 256, false),
        slice(ScalarType::BF16, &bb, 128, false),
        slice(ScalarType::F32, &bc, 128, true),
    ];
    run(
        &m,
        "tile_product",
        &shape(1, 32),
        &args,
        &Options::default(),
    )
    .expect("runs");
    let c: Vec<f32> = read_back(&bc, 128);
    for r in 0..16 {
        for n in 0..8 {
            let exact: f64 = (0..16).map(|k| a[r * 16 + k] * b[k * 8 + n]).sum();
            assert_eq!(c[r * 8 + n], exact as f32, "({r}, {n})");
        }
    }
}

const MISUSE_SOURCE: &str = r#"
#[kernel]
fn typed_short_source(a: &[bf16], d: &mut [f32]) {
    let fa = FragA::<M16N8K16, bf16>::load_row(a, 16, 0, 0);
    d[lane_id() as usize] = fa[7].to_f32();
}

#[kernel]
fn typed_index(d: &mut [i32], i: usize) {
    let acc = Acc::<M16N8K32, i32>::fill(3);
    d[lane_id() as usize] = acc[i];
}
"#;

/// One bounds check per fragment, with std's index text; a computed element index
/// past `len()` panics like an array's.
#[test]
fn a_short_source_and_a_bad_element_index_panic_with_std_s_words() {
    let m = module(MISUSE_SOURCE, "typed_short_source");
    let (ba, bd) = (buffer_of(&[0u16; 255]), buffer_of(&[0.0f32; 32]));
    let args = [
        slice(ScalarType::BF16, &ba, 255, false),
        slice(ScalarType::F32, &bd, 32, true),
    ];
    let fault = run(
        &m,
        "typed_short_source",
        &shape(1, 32),
        &args,
        &Options::default(),
    )
    .expect_err("a 16x16 tile does not fit in 255 elements");
    assert!(
        fault
            .to_string()
            .contains("index out of bounds: the len is 255 but the index is 255"),
        "{fault}"
    );
    let m = module(MISUSE_SOURCE, "typed_index");
    let bd = buffer_of(&[0i32; 32]);
    let args = |i: u64| {
        [
            slice(ScalarType::I32, &bd, 32, true),
            crate::back::sim::Arg::Scalar {
                ty: ScalarType::Usize,
                bits: i,
            },
        ]
    };
    run(
        &m,
        "typed_index",
        &shape(1, 32),
        &args(3),
        &Options::default(),
    )
    .expect("in range");
    assert_eq!(read_back::<i32>(&bd, 32), vec![3; 32]);
    let fault = run(
        &m,
        "typed_index",
        &shape(1, 32),
        &args(4),
        &Options::default(),
    )
    .expect_err("element 4 of a 4-element accumulator");
    assert!(
        fault
            .to_string()
            .contains("the len is 4 but the index is 4"),
        "{fault}"
    );
}

/// The typed kernels through the NVVM writer, libnvvm and ptxas for sm_80 and sm_90.
#[test]
fn the_typed_kernels_compile_for_sm_80_and_sm_90() {
    let mut kernels: Vec<(String, &str, Vec<u32>)> = MMA_COMBOS
        .iter()
        .map(|c| (tile_kernel(*c), "typed_tile", vec![80, 90]))
        .collect();
    kernels.push((LDMATRIX_SOURCE.to_string(), "typed_ldmatrix", vec![80, 90]));
    kernels.push((doc_example(), "tile_product", vec![80, 90]));
    through_ptxas(&kernels, &|kernel, sm, ptx| {
        assert!(
            ptx.contains("mma.sync.aligned.m"),
            "{kernel} sm_{sm}:\n{ptx}"
        );
        // The fragments stay in registers: no local-memory frame.
        assert!(!ptx.contains(".local"), "{kernel} sm_{sm} spills:\n{ptx}");
    });
}
