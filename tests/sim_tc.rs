//! The tensor-core benchmark's kernels (bench/tc_kernels.rs, issue 23) at test size on
//! the CPU simulator: one 128×128 block tile of each GEMM over three K slices (so the
//! cp.async pipeline fills, runs and drains through its empty tail groups) and each
//! attention head size over two K/V tiles (so the online softmax rescales), every
//! output compared with an f64 reference. The simulator runs each mma with the
//! hardware's fragment ownership and each cp.async as landing at its wait, so a wrong
//! lane mapping, swizzle or pipeline wait fails here before it reaches a GPU.

use cudajit::prelude::*;
use cudajit::SimOptions;

#[path = "../bench/tc_kernels.rs"]
#[allow(dead_code, unused_imports)]
mod tc_kernels;

use tc_kernels::checked;

fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
fn signed(seed: u64, i: u64) -> f64 {
    (mix(seed, i) >> 40) as f64 / 8_388_608.0 - 1.0
}

fn simulator() -> (Device, Stream) {
    let device = Device::simulator_with(SimOptions::default());
    let stream = device.new_stream().unwrap();
    (device, stream)
}

/// ‖got − want‖ / ‖want‖ of C = A·Bᵀ (m×n, K-contiguous operands given as f64).
fn gemm_error(a: &[f64], b: &[f64], got: &[f64], m: usize, n: usize, k: usize) -> f64 {
    let (mut diff2, mut ref2) = (0.0, 0.0);
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k).map(|p| a[i * k + p] * b[j * k + p]).sum();
            assert!(!got[i * n + j].is_nan(), "C[{i}][{j}] never written");
            diff2 += (got[i * n + j] - want).powi(2);
            ref2 += want * want;
        }
    }
    (diff2 / ref2).sqrt()
}

const M: usize = 128;
const N: usize = 128;

#[test]
fn bf16_gemm_matches_f64() {
    let (_device, stream) = simulator();
    let k = 128; // four 32-element slices through three stages
    let a: Vec<bf16> = (0..M * k)
        .map(|i| bf16::from_f64(signed(1, i as u64)))
        .collect();
    let b: Vec<bf16> = (0..N * k)
        .map(|i| bf16::from_f64(signed(2, i as u64)))
        .collect();
    let mut c = vec![bf16::NAN; M * N];
    let (m, n, kk) = (M as u32, N as u32, k as u32); // the 16x8 GEMMs take u32 sizes
    launch!(checked::gemm_bf16[1, 128, stream, 3 * 256 * 64](&a, &b, &mut c, m, n, kk)).unwrap();
    let wide = |v: &[bf16]| v.iter().map(|x| x.to_f64()).collect::<Vec<_>>();
    let error = gemm_error(&wide(&a), &wide(&b), &wide(&c), M, N, k);
    // The output is rounded to bf16 (relative 2^-9); the sum is f32 at least.
    assert!(error < 4e-3, "bf16 GEMM error {error:.3e}");
}

#[test]
fn tf32_gemm_matches_f64_of_truncated_inputs() {
    let (_device, stream) = simulator();
    let k = 96;
    let a: Vec<f32> = (0..M * k).map(|i| signed(3, i as u64) as f32).collect();
    let b: Vec<f32> = (0..N * k).map(|i| signed(4, i as u64) as f32).collect();
    let mut c = vec![f32::NAN; M * N];
    let (m, n, kk) = (M as u32, N as u32, k as u32); // the 16x8 GEMMs take u32 sizes
    launch!(checked::gemm_tf32[1, 128, stream, 3 * 256 * 128](&a, &b, &mut c, m, n, kk)).unwrap();
    // The tensor core reads the top 19 bits of each f32 (truncation): the reference too.
    let tf32 = |v: &[f32]| {
        v.iter()
            .map(|x| f32::from_bits(x.to_bits() & !0x1fff) as f64)
            .collect::<Vec<_>>()
    };
    let got: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    let error = gemm_error(&tf32(&a), &tf32(&b), &got, M, N, k);
    assert!(error < 1e-6, "tf32 GEMM error {error:.3e}");
}

#[test]
fn int8_gemm_is_exact() {
    let (_device, stream) = simulator();
    let k = 192; // three 64-byte slices through four stages
    let a: Vec<i8> = (0..M * k)
        .map(|i| (mix(5, i as u64) >> 56) as u8 as i8)
        .collect();
    let b: Vec<i8> = (0..N * k)
        .map(|i| (mix(6, i as u64) >> 56) as u8 as i8)
        .collect();
    let mut c = vec![i32::MIN; M * N];
    let (m, n, kk) = (M as u32, N as u32, k as u32); // the 16x8 GEMMs take u32 sizes
    launch!(checked::gemm_int8[1, 128, stream, 4 * 256 * 64](&a, &b, &mut c, m, n, kk)).unwrap();
    for i in 0..M {
        for j in 0..N {
            let want: i32 = (0..k)
                .map(|p| a[i * k + p] as i32 * b[j * k + p] as i32)
                .sum();
            assert_eq!(c[i * N + j], want, "C[{i}][{j}]");
        }
    }
}

#[test]
fn f64_dgemm_matches_f64() {
    let (_device, stream) = simulator();
    let k = 48; // three 16-element slices
    let a: Vec<f64> = (0..M * k).map(|i| signed(7, i as u64)).collect();
    let b: Vec<f64> = (0..N * k).map(|i| signed(8, i as u64)).collect();
    let mut c = vec![f64::NAN; M * N];
    let (m, n, kk) = (M as u32, N as u32, k as u32); // the GEMMs take u32 sizes
    launch!(checked::dgemm_f64[1, 256, stream, 3 * 256 * 128](&a, &b, &mut c, m, n, kk)).unwrap();
    let error = gemm_error(&a, &b, &c, M, N, k);
    assert!(error < 1e-14, "DGEMM error {error:.3e}");
}

/// One head of softmax(Q·Kᵀ/√d)·V in f64 against the kernel's bf16 output.
fn attention_case(d: usize, bkv: usize, seq: usize) {
    let (_device, stream) = simulator();
    let make = |seed| {
        (0..seq * d)
            .map(|i| bf16::from_f64(signed(seed, i as u64)))
            .collect::<Vec<_>>()
    };
    let (q, k, v) = (make(9), make(10), make(11));
    let mut o = vec![bf16::NAN; seq * d];
    let shared = (128 + 4 * bkv) * d * 2;
    let scale_log2 = std::f32::consts::LOG2_E / (d as f32).sqrt();
    let grid = ((seq / 128) as u32, 1u32);
    match d {
        64 => launch!(checked::attention_d64[grid, 128, stream, shared](&q, &k, &v, &mut o, seq as u32, scale_log2)),
        _ => launch!(checked::attention_d128[grid, 128, stream, shared](&q, &k, &v, &mut o, seq as u32, scale_log2)),
    }
    .unwrap();
    let (mut diff2, mut ref2) = (0.0, 0.0);
    for r in 0..seq {
        let mut p: Vec<f64> = (0..seq)
            .map(|j| {
                (0..d)
                    .map(|x| q[r * d + x].to_f64() * k[j * d + x].to_f64())
                    .sum::<f64>()
                    / (d as f64).sqrt()
            })
            .collect();
        let top = p.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        p.iter_mut().for_each(|s| *s = (*s - top).exp());
        let total: f64 = p.iter().sum();
        for x in 0..d {
            let want = (0..seq).map(|j| p[j] * v[j * d + x].to_f64()).sum::<f64>() / total;
            let got = o[r * d + x].to_f64();
            assert!(!got.is_nan(), "O[{r}][{x}] never written");
            diff2 += (got - want).powi(2);
            ref2 += want * want;
        }
    }
    let error = (diff2 / ref2).sqrt();
    // P is rounded to bf16 before P·V, and O to bf16: about 2^-9 relative each.
    assert!(error < 1e-2, "attention d={d} error {error:.3e}");
}

#[test]
fn attention_d64_matches_f64_over_two_kv_tiles() {
    attention_case(64, 128, 256);
}

#[test]
fn attention_d128_matches_f64_over_four_kv_tiles() {
    attention_case(128, 32, 128);
}

/// Every kernel through libnvvm for compute_90 (and ptxas -arch=sm_90 when
/// CUDAJIT_PTXAS names it), as the GPU machine's JIT compiles them: the tensor-core
/// instructions are there (mma.sync, ldmatrix, cp.async) and nothing spills. Skipped
/// where no libnvvm is found.
#[test]
fn every_kernel_compiles_to_sm90_with_its_tensor_core_instructions() {
    use kernel_device::back::nvvm::Options;
    use kernel_device::nvvm::{CompileOptions, Nvvm};
    let Ok(nvvm) = Nvvm::shared() else {
        eprintln!("skipped: no libnvvm");
        return;
    };
    let options = Options {
        ir_version: nvvm.ir_version(),
        ..Options::default()
    };
    let kernels = [
        (
            "gemm_bf16",
            checked::gemm_bf16::source(),
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        ),
        (
            "gemm_tf32",
            checked::gemm_tf32::source(),
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        ),
        (
            "gemm_int8",
            checked::gemm_int8::source(),
            "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
        ),
        (
            "dgemm_f64",
            checked::dgemm_f64::source(),
            "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
        ),
        (
            "attention_d64",
            checked::attention_d64::source(),
            "ldmatrix.sync.aligned.m8n8.x4.trans",
        ),
        (
            "attention_d128",
            checked::attention_d128::source(),
            "ldmatrix.sync.aligned.m8n8.x4.trans",
        ),
    ];
    let dir = std::env::temp_dir().join(format!("cudajit-sim-tc-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, source, instruction) in kernels {
        let unit = kernel_device::nvvm_ir_for_kernel(source, &options).unwrap();
        let compile = CompileOptions {
            arch: "compute_90".to_string(),
            fast_math: source.options.fast_math,
            ..CompileOptions::default()
        };
        let ptx = nvvm.compile(&unit.nvvm_ir, &compile).unwrap();
        for wanted in [
            instruction,
            "cp.async.cg.shared.global",
            "cp.async.wait_group",
        ] {
            assert!(ptx.contains(wanted), "{name}: no `{wanted}` in its PTX");
        }
        if name.starts_with("attention") {
            assert!(
                ptx.contains("ex2.approx.ftz.f32"),
                "{name}: exp2 is not ex2.approx.ftz"
            );
        }
        let Some(ptxas) = std::env::var_os("CUDAJIT_PTXAS") else {
            continue;
        };
        let path = dir.join(format!("{name}.ptx"));
        if std::env::var_os("SIM_TC_KEEP_PTX").is_some() {
            std::fs::write(std::env::temp_dir().join(format!("{name}.ptx")), &ptx).unwrap();
        }
        std::fs::write(&path, &ptx).unwrap();
        let out = std::process::Command::new(ptxas)
            .args(["-arch=sm_90", "-v", "-o", "/dev/null"])
            .arg(&path)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: ptxas: {report}");
        eprintln!(
            "{name}: {}",
            report
                .lines()
                .filter(|l| l.contains("Used") || l.contains("spill"))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
