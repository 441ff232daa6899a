//! Warpgroup MMA kernels on the simulator against an f64 reference computed without
//! its ownership or descriptor rules, and each protocol misuse planted in a copy of
//! the kernel (each reported; the fixed kernel is silent).

use crate::back::sim::tests::{buffer_of, module, read_back, shape, slice};
use crate::back::sim::{run, Options};
use crate::ir::ScalarType;

type Buffer = std::sync::Arc<crate::back::sim::memory::Buffer>;

/// `c (64 x N) = a (64 x K) * b^T` where `b` is `N x K` (K-major B): bf16, f16 or
/// e4m3 tiles of 128-byte rows (64 16-bit or 128 e4m3 columns), copied with `cp_async`
/// into 128B-swizzled shared tiles (16-byte chunk `j` of row `r` at chunk `j ^ (r %
/// 8)`), one m64nNk16 (e4m3: m64nNk32) wgmma per 32 bytes of K. The planted-bug tests
/// edit the text of `gemm_source(16, "bf16", true)`.
fn gemm_source(n: usize, input: &str, checked: bool) -> String {
    let regs = n / 2;
    // Elements per 16-byte chunk, per 128-byte row (the k-tile) and per wgmma.
    let (chunk, row, kstep) = if input == "e4m3" {
        (16, 128, 32)
    } else {
        (8, 64, 16)
    };
    let list = |p: &str| {
        (0..regs)
            .map(|i| format!("{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let attribute = if checked { "" } else { "(boundscheck = false)" };
    let mut s = format!(
        "#[kernel{attribute}]\nfn wg_gemm(a: &[{input}], b: &[{input}], c: &mut [f32], k_total: usize) {{\n    let ta = shared_array::<[{input}; {}]>();\n    let tb = shared_array::<[{input}; {}]>();\n    let t = thread_idx().x as usize;\n",
        64 * row,
        n * row
    );
    for i in 0..regs {
        s += &format!("    let mut c{i} = 0.0f32;\n");
    }
    s += &format!(
        "    for kb in 0..k_total / {row} {{\n        for i in 0..4 {{\n            let q = t * 4 + i;\n            let r = q / 8;\n            let j = q % 8;\n            cp_async::<16>(ta, r * {row} + (j ^ (r % 8)) * {chunk}, a, r * k_total + kb * {row} + j * {chunk});\n        }}\n        let mut q = t;\n        while q < {chunks} {{\n            let r = q / 8;\n            let j = q % 8;\n            cp_async::<16>(tb, r * {row} + (j ^ (r % 8)) * {chunk}, b, r * k_total + kb * {row} + j * {chunk});\n            q += 128;\n        }}\n        cp_async_commit();\n        cp_async_wait_all();\n        fence_proxy_async();\n        sync_threads();\n        wgmma_fence();\n        for ks in 0..4 {{\n            let da = wgmma_descriptor(ta, ks * {kstep}, 128, 0, 1024);\n            let db = wgmma_descriptor(tb, ks * {kstep}, 128, 0, 1024);\n            let ({}) =\n                wgmma_m64n{n}k{kstep}_f32_{input}(da, db, 1, {});\n",
        list("d"),
        list("c"),
        chunks = n * 8
    );
    for i in 0..regs {
        s += &format!("            c{i} = d{i};\n");
    }
    s += "        }\n        wgmma_commit_group();\n        wgmma_wait_group_0();\n        sync_threads();\n    }\n    let row = 16 * (t / 32) + (t % 32) / 4;\n    let col = 2 * (t % 4);\n";
    for i in 0..regs {
        let r = if (i / 2) % 2 == 0 { "row" } else { "(row + 8)" };
        s += &format!("    c[{r} * {n} + col + {}] = c{i};\n", 8 * (i / 4) + i % 2);
    }
    s + "}\n"
}

fn gemm() -> String {
    gemm_source(16, "bf16", true)
}

const K: usize = 128;

/// Random bf16 inputs (bits and exact values) for `rows x K`.
fn random_bf16(rng: &mut fastrand::Rng, n: usize) -> (Vec<half::bf16>, Vec<f64>) {
    let v: Vec<half::bf16> = (0..n)
        .map(|_| half::bf16::from_f32(rng.f32() * 4.0 - 2.0))
        .collect();
    let exact = v.iter().map(|x| x.to_f64()).collect();
    (v, exact)
}

/// Runs `source`'s `wg_gemm` on random inputs with `threads` threads: the result or
/// the fault's text, and the f64 reference.
fn run_gemm(source: &str, threads: u32, k: usize) -> (Result<Vec<f32>, String>, Vec<f64>) {
    let mut rng = fastrand::Rng::with_seed(24);
    let (a, ea) = random_bf16(&mut rng, 64 * k);
    let (b, eb) = random_bf16(&mut rng, 16 * k);
    let inputs = (buffer_of(&a), ea, buffer_of(&b), eb);
    run_gemm_on(source, threads, k, ScalarType::BF16, inputs)
}

/// Random e4m3 inputs (bits and exact values) for `rows x K`, over the format's range
/// (subnormals included).
fn random_e4m3(rng: &mut fastrand::Rng, n: usize) -> (Vec<crate::e4m3>, Vec<f64>) {
    let v: Vec<crate::e4m3> = (0..n)
        .map(|_| crate::e4m3::from_f32((rng.f32() * 2.0 - 1.0) * 2f32.powi(rng.i32(-9..=3))))
        .collect();
    let exact = v.iter().map(|x| x.to_f64()).collect();
    (v, exact)
}

/// As [`run_gemm`], on given inputs of `elem` (buffers and exact values).
fn run_gemm_on(
    source: &str,
    threads: u32,
    k: usize,
    elem: ScalarType,
    (ba, ea, bb, eb): (Buffer, Vec<f64>, Buffer, Vec<f64>),
) -> (Result<Vec<f32>, String>, Vec<f64>) {
    let m = module(source, "wg_gemm");
    let bc = buffer_of(&vec![f32::NAN; 64 * 16]);
    let args = [
        slice(elem, &ba, ea.len(), false),
        slice(elem, &bb, eb.len(), false),
        slice(ScalarType::F32, &bc, 64 * 16, true),
        crate::back::sim::Arg::Scalar {
            ty: ScalarType::Usize,
            bits: k as u64,
        },
    ];
    let reference: Vec<f64> = (0..64 * 16)
        .map(|i| {
            let (r, c) = (i / 16, i % 16);
            (0..k).map(|p| ea[r * k + p] * eb[c * k + p]).sum()
        })
        .collect();
    let result = run(
        &m,
        "wg_gemm",
        &shape(1, threads),
        &args,
        &Options::default(),
    )
    .map(|_| read_back(&bc, 64 * 16))
    .map_err(|f| f.to_string());
    (result, reference)
}

fn fault_of(source: &str, threads: u32) -> String {
    run_gemm(source, threads, K)
        .0
        .expect_err("the planted bug is reported")
}

/// The kernel with `from` replaced by `to` (which must occur).
fn planted(from: &str, to: &str) -> String {
    let gemm = gemm();
    assert!(gemm.contains(from), "{from}");
    gemm.replacen(from, to, 1)
}

#[test]
fn a_swizzled_bf16_wgmma_gemm_matches_the_f64_reference() {
    let (result, reference) = run_gemm(&gemm(), 128, K);
    let c = result.unwrap_or_else(|e| panic!("{e}"));
    for (i, (&got, &want)) in c.iter().zip(&reference).enumerate() {
        // One rounding of the f64 sum to f32 (`back::sim::wgmma`'s arithmetic) per
        // batch of 4 wgmmas carried in f32 between batches: a few f32 ulps of the sum
        // of magnitudes.
        let bound = 4.0 * K as f64 * f64::from(f32::EPSILON) * 4.0;
        assert!(
            (f64::from(got) - want).abs() <= bound,
            "c[{}][{}] = {got}, reference {want}",
            i / 16,
            i % 16
        );
    }
}

/// The same GEMM on e4m3 tiles (m64n16k32, 128 elements a swizzled row): the decoded
/// inputs' products are exact in f64, so the bound is the bf16 test's, scaled by the
/// inputs' largest magnitude (8, squared).
#[test]
fn a_swizzled_e4m3_wgmma_gemm_matches_the_f64_reference() {
    let mut rng = fastrand::Rng::new();
    let seed = rng.get_seed();
    let (a, ea) = random_e4m3(&mut rng, 64 * K);
    let (b, eb) = random_e4m3(&mut rng, 16 * K);
    let inputs = (buffer_of(&a), ea, buffer_of(&b), eb);
    let source = gemm_source(16, "e4m3", true);
    let (result, reference) = run_gemm_on(&source, 128, K, ScalarType::E4M3, inputs);
    let c = result.unwrap_or_else(|e| panic!("{e}"));
    for (i, (&got, &want)) in c.iter().zip(&reference).enumerate() {
        let bound = 64.0 * 4.0 * K as f64 * f64::from(f32::EPSILON) * 4.0;
        assert!(
            (f64::from(got) - want).abs() <= bound,
            "c[{}][{}] = {got}, reference {want} (seed {seed})",
            i / 16,
            i % 16
        );
    }
}

#[test]
fn a_wgmma_without_its_fence_names_the_wait_before_it() {
    let text = fault_of(&planted("        wgmma_fence();\n", ""), 128);
    assert!(
        text.contains("wgmma misuse")
            && text.contains("no wgmma_fence()")
            && text.contains("the kernel began"),
        "{text}"
    );
}

#[test]
fn a_tile_overwritten_before_the_wait_is_a_race_with_the_wgmma() {
    let text = fault_of(
        &planted(
            "        wgmma_commit_group();\n",
            "        wgmma_commit_group();\n        tb[t] = bf16::from_f32(0.0);\n",
        ),
        128,
    );
    assert!(
        text.contains("data race") && text.contains("a shared tile a wgmma still reads"),
        "{text}"
    );
}

#[test]
fn a_missing_wait_is_reported_at_the_wgmma() {
    let unwaited = planted("        wgmma_wait_group_0();\n", "");
    // One stage: the block ends with the group in flight.
    let text = run_gemm(&unwaited, 128, 64).0.expect_err("reported");
    assert!(
        text.contains("wgmma misuse") && text.contains("never retired"),
        "{text}"
    );
    // Two stages: the next stage's copy overwrites a tile the wgmma still reads.
    let text = fault_of(&unwaited, 128);
    assert!(
        text.contains("data race") && text.contains("a shared tile a wgmma still reads"),
        "{text}"
    );
}

#[test]
fn a_wgmma_in_divergent_code_or_a_partial_warpgroup_is_reported() {
    let text = fault_of(
        &planted(
            "            let (d0, d1, d2, d3, d4, d5, d6, d7) =\n                wgmma_m64n16k16_f32_bf16(da, db, 1, c0, c1, c2, c3, c4, c5, c6, c7);",
            "            let mut d = (c0, c1, c2, c3, c4, c5, c6, c7);\n            if t % 2 == 0 {\n                d = wgmma_m64n16k16_f32_bf16(da, db, 1, c0, c1, c2, c3, c4, c5, c6, c7);\n            }\n            let (d0, d1, d2, d3, d4, d5, d6, d7) = d;",
        ),
        128,
    );
    assert!(text.contains("Mma") || text.contains("wgmma"), "{text}");
    let text = fault_of(&gemm(), 64);
    assert!(text.contains("whole warpgroup of 128 threads"), "{text}");
}

// Hopper: wgmma (setmaxnreg)
#[test]
fn setmaxnreg_is_warpgroup_collective() {
    let start = "    let t = thread_idx().x as usize;\n";
    // The whole warpgroup reallocates: the GEMM still matches (registers are not
    // modelled), and the NVVM writer prints the instruction.
    let whole = planted(start, &format!("{start}    setmaxnreg_inc::<232>();\n"));
    let (result, _) = run_gemm(&whole, 128, K);
    result.unwrap_or_else(|e| panic!("{e}"));
    let m = module(&whole, "wg_gemm");
    let text = crate::back::nvvm::write_string(&m, &Default::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    assert!(
        text.contains("setmaxnreg.inc.sync.aligned.u32 232;"),
        "{text}"
    );
    // Half the warp's lanes (divergent code), or a block of half a warpgroup.
    let divergent = planted(
        start,
        &format!("{start}    if t % 2 == 0 {{\n        setmaxnreg_dec::<40>();\n    }}\n"),
    );
    let text = fault_of(&divergent, 128);
    assert!(text.contains("SetMaxNreg"), "{text}");
    let text = fault_of(&whole, 64);
    assert!(
        text.contains("setmaxnreg needs a whole warpgroup of 128 threads"),
        "{text}"
    );
}

/// Each wgmma form through the NVVM writer, libnvvm (compute_90a) and `ptxas -v`
/// (sm_90a): the instruction is in the PTX with all its accumulators, and the kernel
/// keeps them in registers (no spill, even for N = 256's 128, bounds-checked or not). Skipped, saying so,
/// without `CUDAJIT_NVVM_PATH` and `CUDAJIT_PTXAS`.
#[test]
fn every_wgmma_form_compiles_for_sm_90a_without_spills() {
    let Some((nvvm, ptxas)) = crate::nvvm::test_toolchain() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for (n, input, checked) in [
        (8, "bf16", true),
        (16, "f16", true),
        (64, "bf16", true),
        (128, "bf16", true),
        (128, "bf16", false),
        (256, "bf16", false),
        (64, "e4m3", true),
        (256, "e4m3", false),
    ] {
        let source = gemm_source(n, input, checked);
        let m = module(&source, "wg_gemm");
        assert_eq!(
            crate::proc::wgmma::module_needs(&m),
            vec![crate::proc::wgmma::TARGET_NEED]
        );
        let text = crate::back::nvvm::write_string(&m, &Default::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .text;
        let options = crate::nvvm::CompileOptions {
            arch: "compute_90a".into(),
            ..Default::default()
        };
        let ptx = nvvm
            .compile(&text, &options)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let k = if input == "e4m3" { 32 } else { 16 };
        let instruction = format!("wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{input}.{input}");
        assert!(ptx.contains(&instruction), "{instruction} missing:\n{ptx}");
        for protocol in [
            "wgmma.fence.sync.aligned",
            "wgmma.commit_group.sync.aligned",
            "wgmma.wait_group.sync.aligned 0",
            "fence.proxy.async.shared::cta",
        ] {
            assert!(ptx.contains(protocol), "{protocol} missing");
        }
        let name = format!("m64n{n}k{k}{input}_checked_{checked}");
        let log = super::forms_tests::assemble(&ptxas, tmp.path(), &name, &ptx);
        // Checked or not, every accumulator stays in registers (ptxas 13.0, sm_90a:
        // 56 registers at N = 8, 114 at N = 128, 166 at N = 256).
        assert!(
            log.contains("0 bytes spill stores") && log.contains("0 bytes spill loads"),
            "N = {n} checked {checked} spills: {log}"
        );
    }
}
