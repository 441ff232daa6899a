//! Asynchronous copies and vector accesses as NVVM IR and, with the toolchain
//! configured (`CUDAJIT_NVVM_PATH`, `CUDAJIT_PTXAS`), as PTX for sm_80 and sm_90:
//! `cp.async` with its size and `src-size`, the group instructions, and one
//! `ld`/`st` `.v4` per vector access.

use crate::back::nvvm::{write_string, Options};
use crate::front::lower_sources;
use crate::front::tests::source;
use crate::source::SourceKind;

/// The pipelined GEMM tile loop of `docs/async_copies.md`.
const GEMM: &str =
    "fn gemm_cp_async(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let a_tiles = shared_array::<[f32; 3072]>();
    let b_tiles = shared_array::<[f32; 3072]>();
    let t = thread_idx().x as usize;
    let row0 = block_idx().y as usize * 32;
    let col0 = block_idx().x as usize * 32;
    let r = t / 8;
    let c4 = (t % 8) * 4;
    let k_tiles = (k + 31) / 32;
    for tile in 0..2 {
        if tile < k_tiles {
            let stage = tile * 1024 + r * 32 + c4;
            let (a_row, a_col) = (row0 + r, tile * 32 + c4);
            let a_valid = if a_row < m { k.saturating_sub(a_col) } else { 0 };
            cp_async_zfill::<16>(a_tiles, stage, a, a_row * k + a_col, a_valid);
            let (b_row, b_col) = (tile * 32 + r, col0 + c4);
            let b_valid = if b_row < k { n.saturating_sub(b_col) } else { 0 };
            cp_async_zfill::<16>(b_tiles, stage, b, b_row * n + b_col, b_valid);
        }
        cp_async_commit();
    }
    let mut acc = [0.0f32; 4];
    for kt in 0..k_tiles {
        let next = kt + 2;
        if next < k_tiles {
            let stage = (next % 3) * 1024 + r * 32 + c4;
            let (a_row, a_col) = (row0 + r, next * 32 + c4);
            let a_valid = if a_row < m { k.saturating_sub(a_col) } else { 0 };
            cp_async_zfill::<16>(a_tiles, stage, a, a_row * k + a_col, a_valid);
            let (b_row, b_col) = (next * 32 + r, col0 + c4);
            let b_valid = if b_row < k { n.saturating_sub(b_col) } else { 0 };
            cp_async_zfill::<16>(b_tiles, stage, b, b_row * n + b_col, b_valid);
        }
        cp_async_commit();
        cp_async_wait::<2>();
        sync_threads();
        let base = (kt % 3) * 1024;
        for kk in 0..32 {
            let a_value = a_tiles[base + r * 32 + kk];
            let b_values = b_tiles.load_vec::<4>(base + kk * 32 + c4);
            for j in 0..4 {
                acc[j] += a_value * b_values[j];
            }
        }
        sync_threads();
    }
    let (row, col) = (row0 + r, col0 + c4);
    if row < m {
        if col + 4 <= n {
            c.store_vec::<4>(row * n + col, acc);
        } else {
            for j in 0..4 {
                if col + j < n {
                    c[row * n + col + j] = acc[j];
                }
            }
        }
    }
}";

pub(super) fn ptx_for(text: &str, arch: &str) -> Option<String> {
    let Some((nvvm, ptxas)) = crate::nvvm::test_toolchain() else {
        return None;
    };
    let options = crate::nvvm::CompileOptions {
        arch: format!("compute_{arch}"),
        ..Default::default()
    };
    let ptx = nvvm
        .compile(text, &options)
        .unwrap_or_else(|e| panic!("{e}\n--- module ---\n{text}"));
    let dir = tempfile::tempdir().unwrap();
    let ptx_path = dir.path().join("m.ptx");
    std::fs::write(&ptx_path, &ptx).unwrap();
    let status = std::process::Command::new(ptxas)
        .arg(format!("-arch=sm_{arch}"))
        .arg("-o")
        .arg(dir.path().join("m.cubin"))
        .arg(&ptx_path)
        .output()
        .expect("run ptxas");
    assert!(
        status.status.success(),
        "ptxas: {}\n{ptx}",
        String::from_utf8_lossy(&status.stderr)
    );
    Some(ptx)
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn the_pipelined_gemm_copies_asynchronously_and_loads_vectors() {
    let module = lower_sources(&[source(GEMM, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let ir = &out.text;
    // Four copies (two in the prologue, two in the loop), each with its src-size.
    assert_eq!(
        count(ir, "cp.async.ca.shared.global [s], [$1], 16, $2;"),
        4,
        "{ir}"
    );
    assert_eq!(count(ir, "cp.async.commit_group;"), 2, "{ir}");
    assert_eq!(count(ir, "cp.async.wait_group 2;"), 1, "{ir}");
    // One vector load per copy of the inner loop (its fast and checked versions).
    assert!(count(ir, "load <4 x float>, <4 x float>*") >= 1, "{ir}");
    assert_eq!(count(ir, "store <4 x float>"), 1, "{ir}");
    // The shared arrays are known to be shared: no `isspacep.shared` for them; the
    // sources are kernel parameters: no `isspacep.global`.
    assert_eq!(count(ir, "isspacep"), 0, "{ir}");
    for arch in ["80", "90"] {
        let Some(ptx) = ptx_for(ir, arch) else {
            return;
        };
        // libnvvm may unroll the prologue: at least the four copies of the source.
        assert!(
            ptx.lines()
                .filter(
                    |l| l.contains("cp.async.ca.shared.global [s], [%rd") && l.contains("16, %r")
                )
                .count()
                >= 4,
            "{ptx}"
        );
        assert_eq!(count(&ptx, "cp.async.wait_group 2;"), 1, "{ptx}");
        assert!(count(&ptx, "cp.async.commit_group;") >= 2, "{ptx}");
        let vector_stores = ptx
            .lines()
            .filter(|l| l.contains("st.global.v4.f32"))
            .count();
        assert!(vector_stores >= 1, "{ptx}");
        // The B tile's `load_vec`s are `ld.shared.v4` (the A tile's scalar reads stay
        // scalar: vectors are what the kernel asks for, not what NVVM guesses).
        assert!(count(&ptx, "ld.shared.v4.f32") >= 1, "{ptx}");
    }
}

#[test]
fn copies_into_a_take_slice_check_its_space_and_cg_copies_need_16_bytes() {
    let text = "fn k(a: &[u32], n: usize) {
        let mut smem = dynamic_shared();
        let tile = smem.take::<u32>(256);
        let t = thread_idx().x as usize;
        cp_async_cg::<16>(tile, t * 4, a, t * 4);
        cp_async::<4>(tile, t, a, t);
        cp_async_wait_all();
        sync_threads();
        let v = tile.load_vec::<2>(t * 2);
        if v[0] == n as u32 { tile[t] = v[1]; }
    }";
    let module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let ir = &out.text;
    assert_eq!(count(ir, "isspacep.shared"), 2, "{ir}");
    assert_eq!(
        count(ir, "cp.async.cg.shared.global [s], [$1], 16;"),
        1,
        "{ir}"
    );
    assert_eq!(
        count(ir, "cp.async.ca.shared.global [s], [$1], 4;"),
        1,
        "{ir}"
    );
    assert_eq!(count(ir, "cp.async.wait_all;"), 1, "{ir}");
    if let Some(ptx) = ptx_for(ir, "80") {
        assert_eq!(count(&ptx, "cp.async.cg.shared.global"), 1, "{ptx}");
        assert!(
            ptx.contains("ld.shared.v2.u32") || ptx.contains("ld.v2.u32"),
            "{ptx}"
        );
    }
}

#[test]
fn copies_on_a_target_before_sm_80_are_an_error_naming_the_feature_and_vectors_are_not() {
    let text = "fn k(a: &[f32], out: &mut [f32]) {
        let tile = shared_array::<[f32; 128]>();
        let t = thread_idx().x as usize;
        cp_async::<16>(tile, t * 4, a, t * 4);
        cp_async_wait_all();
        out.store_vec::<4>(t * 4, tile.load_vec::<4>(t * 4));
    }";
    let module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let turing = Options {
        arch: Some(75),
        ..Options::default()
    };
    let err = write_string(&module, &turing).map(|_| ()).unwrap_err();
    assert!(
        err.to_string()
            .contains("`cp.async` (asynchronous copies) needs compute capability 8.0"),
        "{err}"
    );
    let ampere = Options {
        arch: Some(80),
        ..Options::default()
    };
    assert!(write_string(&module, &ampere).is_ok());
    let vectors_only = "fn v(a: &[f32], out: &mut [f32]) {
        let t = thread_idx().x as usize;
        out.store_vec::<4>(t * 4, a.load_vec::<4>(t * 4));
    }";
    let module = lower_sources(&[source(vectors_only, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    assert!(write_string(&module, &turing).is_ok());
}

/// A tile's shared addresses are computed in 32 bits from the index expression, as
/// nvcc computes them from `int` offsets (`mma/window.rs`): `+ * & |` of locals and
/// literals narrowed, a shift right lowered as written and truncated; and a copy's
/// global source is the slice base converted once, not a `cvta` inside its asm.
#[test]
fn tile_addresses_are_32_bit_and_copies_convert_the_source_once() {
    let text = "fn tile_addresses(a: &[bf16], out: &mut [u32]) {
        let mut smem = dynamic_shared();
        let tile = smem.take::<bf16>(1024);
        let tid = thread_idx().x as usize;
        let lane = tid % 32;
        let row = lane & 15;
        cp_async_cg::<16>(tile, tid * 8, a, tid * 8);
        cp_async_commit();
        cp_async_wait::<0>();
        sync_threads();
        let (r0, r1, r2, r3) = ldmatrix_x4(tile, row * 32 + (lane >> 4) * 8 + 512);
        out[tid] = r0 ^ r1 ^ r2 ^ r3;
    }";
    let module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let ir = &out.text;
    let narrowed = |inst: &str| {
        ir.lines()
            .filter(|l| l.contains("%index.low") && l.contains(&format!("= {inst} i32")))
            .count()
    };
    // row * 32 + (lane >> 4) * 8 + 512: two multiplies in 32 bits, and each term's
    // bytes added to the tile's 32-bit base (`mma::shared_tile_element_address`).
    assert!(narrowed("mul") >= 2, "{ir}");
    let added = ir
        .lines()
        .filter(|l| l.contains("= add i32 %shared.addr") && l.contains(", %shared.offset"))
        .count();
    assert!(added >= 3, "{ir}");
    assert!(ir.contains("addrspacecast i16* "), "{ir}");
    assert!(ir.contains("to i16 addrspace(1)*"), "{ir}");
    assert!(!ir.contains("cvta.to.global"), "{ir}");
}

/// A vector store's alignment test, as a copy's, takes only the index terms that
/// `opt::align` cannot prove multiples of its lanes: the epilogue's pair stores at
/// `row + 8 * d + col` (every term but `row`'s unknown start even) share one test,
/// which LLVM computes once, and a store with an odd term keeps a test of its own.
#[test]
fn vector_stores_test_only_the_index_terms_that_move_their_alignment() {
    let text = "fn k(out: &mut [f32], first: usize) {
        let t = thread_idx().x as usize;
        let row = first + t * 64;
        out.store_vec::<2>(row, [1.0, 2.0]);
        out.store_vec::<2>(row + 8, [3.0, 4.0]);
        out.store_vec::<2>(row + 16 + 2 * t, [5.0, 6.0]);
        out.store_vec::<2>(row + 34, [7.0, 8.0]);
        out.store_vec::<2>(row + 41, [9.0, 10.0]);
    }";
    let mut module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let handles: Vec<_> = module.functions.iter().map(|(h, _)| h).collect();
    for h in handles {
        module.functions[h].options.bounds_check = false;
    }
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let ir = &out.text;
    // Each store tests base + 4 * (its unproven terms): `first` for four of them,
    // `first + 41` for the last; none tests its whole address.
    assert_eq!(count(ir, "%vec.low"), 5 * 2, "{ir}");
    assert_eq!(count(ir, "= add i64 0, "), 5, "{ir}");
    if let Some(ptx) = ptx_for(ir, "90") {
        assert_eq!(count(&ptx, "st.global.v2.f32"), 5, "{ptx}");
        // Two different tested values: `first`'s and `first + 41`'s.
        let tests = ptx
            .lines()
            .filter(|l| l.trim_start().starts_with("and.b64") && l.trim_end().ends_with(", 7;"))
            .count();
        assert_eq!(tests, 2, "{ptx}");
    }
}
