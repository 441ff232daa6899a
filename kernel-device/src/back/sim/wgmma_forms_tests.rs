//! The transposed and register-A wgmma forms (`proc::wgmma::FORMS`) on the simulator,
//! against an f64 reference that knows neither the fragment nor the descriptor rules,
//! and each through libnvvm and ptxas. The kernel states the PTX ISA's A fragment
//! itself (rows `lane / 4 (+ 8)`, columns `2 (lane % 4) + (0, 1) (+ 8)`).

use crate::back::sim::tests::{buffer_of, module, read_back, shape, slice};
use crate::back::sim::{run, Options};
use crate::ir::{ScalarType, WgmmaA, WgmmaMajor};

/// One warpgroup computes `c (64 x n) = a (64 x 64) b (64 x n)`, `a` row-major, `b`
/// given as `bt` (`n x 64`, row-major) when B is K-major, else as `b` (`64 x n`,
/// row-major: MN-major). Shared tiles are 128B-swizzled and filled element by element:
/// K-major `[row][64 of K]`; MN-major `[M or N / 64][64 of K][64]`. A from registers
/// is loaded from `a` where the fragment says and packed with `pack_<in>x2`.
pub(crate) fn forms_source(n: usize, input: &str, a: WgmmaA, b: WgmmaMajor) -> String {
    let regs = n / 2;
    let list = |p: &str| {
        (0..regs)
            .map(|i| format!("{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let suffix = crate::ir::WgmmaCombo {
        a,
        b,
        ..crate::ir::WgmmaCombo::ss(n as u16, crate::proc::mma::MmaElem::BF16)
    }
    .suffix();
    let mut s = format!(
        "#[kernel]\nfn wg_forms(a: &[{input}], b: &[{input}], c: &mut [f32]) {{\n    let ta = shared_array::<[{input}; 4096]>();\n    let tb = shared_array::<[{input}; {}]>();\n    let t = thread_idx().x as usize;\n",
        64 * n
    );
    // Swizzled offsets: `sw(row, col)` of a 64-column block.
    let sw = |row: &str, col: &str| {
        format!("{row} * 64 + ((({col}) / 8) ^ (({row}) % 8)) * 8 + ({col}) % 8")
    };
    match a {
        WgmmaA::Shared(WgmmaMajor::K) => {
            s += &format!("    for q in 0..32 {{\n        let e = t * 32 + q;\n        let (m, k) = (e / 64, e % 64);\n        ta[{}] = a[e];\n    }}\n", sw("m", "k"));
        }
        WgmmaA::Shared(WgmmaMajor::MN) => {
            s += &format!("    for q in 0..32 {{\n        let e = t * 32 + q;\n        let (m, k) = (e / 64, e % 64);\n        ta[{}] = a[e];\n    }}\n", sw("k", "m"));
        }
        WgmmaA::Registers => {
            s += "    let row = 16 * (t / 32) + (t % 32) / 4;\n    let col = 2 * (t % 4);\n";
            let pack = format!("pack_{input}x2");
            for ks in 0..4 {
                for (r, (dr, dc)) in [(0, 0), (8, 0), (0, 8), (8, 8)].into_iter().enumerate() {
                    let at = format!("(row + {dr}) * 64 + {} + col + {dc}", 16 * ks);
                    s += &format!(
                        "    let a{ks}_{r} = {pack}(a[{at}].to_f32(), a[{at} + 1].to_f32());\n"
                    );
                }
            }
        }
    }
    let per = 64 * n / 128;
    match b {
        WgmmaMajor::K => {
            s += &format!("    for q in 0..{per} {{\n        let e = t * {per} + q;\n        let (nn, k) = (e / 64, e % 64);\n        tb[{}] = b[e];\n    }}\n", sw("nn", "k"));
        }
        WgmmaMajor::MN => {
            s += &format!("    for q in 0..{per} {{\n        let e = t * {per} + q;\n        let (k, nn) = (e / {n}, e % {n});\n        tb[(nn / 64) * 4096 + {}] = b[e];\n    }}\n", sw("k", "nn % 64"));
        }
    }
    s += "    fence_proxy_async();\n    sync_threads();\n";
    for i in 0..regs {
        s += &format!("    let mut c{i} = 0.0f32;\n");
    }
    s += "    wgmma_fence();\n";
    for ks in 0..4 {
        let da = match a {
            WgmmaA::Shared(WgmmaMajor::K) => {
                format!("wgmma_descriptor(ta, {}, 128, 0, 1024), ", ks * 16)
            }
            WgmmaA::Shared(WgmmaMajor::MN) => {
                format!("wgmma_descriptor(ta, {}, 128, 8192, 1024), ", ks * 16 * 64)
            }
            WgmmaA::Registers => format!("a{ks}_0, a{ks}_1, a{ks}_2, a{ks}_3, "),
        };
        let db = match b {
            WgmmaMajor::K => format!("wgmma_descriptor(tb, {}, 128, 0, 1024)", ks * 16),
            WgmmaMajor::MN => format!("wgmma_descriptor(tb, {}, 128, 8192, 1024)", ks * 16 * 64),
        };
        s += &format!(
            "    let ({}) = wgmma_m64n{n}k16_f32_{input}{suffix}({da}{db}, 1, {});\n",
            list("d"),
            list("c")
        );
        for i in 0..regs {
            s += &format!("    c{i} = d{i};\n");
        }
    }
    s += "    wgmma_commit_group();\n    wgmma_wait_group_0();\n    let row = 16 * (t / 32) + (t % 32) / 4;\n    let col = 2 * (t % 4);\n";
    for i in 0..regs {
        let r = if (i / 2) % 2 == 0 { "row" } else { "(row + 8)" };
        s += &format!("    c[{r} * {n} + col + {}] = c{i};\n", 8 * (i / 4) + i % 2);
    }
    s + "}\n"
}

const FORMS: [(WgmmaA, WgmmaMajor); 5] = [
    (WgmmaA::Shared(WgmmaMajor::MN), WgmmaMajor::K),
    (WgmmaA::Shared(WgmmaMajor::K), WgmmaMajor::MN),
    (WgmmaA::Shared(WgmmaMajor::MN), WgmmaMajor::MN),
    (WgmmaA::Registers, WgmmaMajor::K),
    (WgmmaA::Registers, WgmmaMajor::MN),
];

/// Fresh random 16-bit values: bits and exact values.
fn random_half(rng: &mut fastrand::Rng, len: usize, f16: bool) -> (Vec<u16>, Vec<f64>) {
    let x: Vec<f32> = (0..len).map(|_| rng.f32() * 4.0 - 2.0).collect();
    if f16 {
        let v: Vec<half::f16> = x.iter().map(|&x| half::f16::from_f32(x)).collect();
        (
            v.iter().map(|h| h.to_bits()).collect(),
            v.iter().map(|h| h.to_f64()).collect(),
        )
    } else {
        let v: Vec<half::bf16> = x.iter().map(|&x| half::bf16::from_f32(x)).collect();
        (
            v.iter().map(|h| h.to_bits()).collect(),
            v.iter().map(|h| h.to_f64()).collect(),
        )
    }
}

#[test]
fn every_transposed_and_register_a_form_matches_the_f64_reference() {
    let mut rng = fastrand::Rng::new();
    for (n, input) in [(64usize, "bf16"), (128, "f16")] {
        let elem = ScalarType::from_rust_name(input).unwrap();
        for (a_form, b_major) in FORMS {
            let source = forms_source(n, input, a_form, b_major);
            let m = module(&source, "wg_forms");
            let (a, ea) = random_half(&mut rng, 64 * 64, input == "f16");
            let (b, eb) = random_half(&mut rng, 64 * n, input == "f16");
            let (ba, bb) = (buffer_of(&a), buffer_of(&b));
            let bc = buffer_of(&vec![f32::NAN; 64 * n]);
            let args = [
                slice(elem, &ba, a.len(), false),
                slice(elem, &bb, b.len(), false),
                slice(ScalarType::F32, &bc, 64 * n, true),
            ];
            run(&m, "wg_forms", &shape(1, 128), &args, &Options::default())
                .unwrap_or_else(|f| panic!("{a_form:?} {b_major:?}: {f}"));
            let c: Vec<f32> = read_back(&bc, 64 * n);
            // B's element (k, j): `bt[j][k]` K-major, `b[k][j]` MN-major.
            let b_at = |k: usize, j: usize| match b_major {
                WgmmaMajor::K => eb[j * 64 + k],
                WgmmaMajor::MN => eb[k * n + j],
            };
            for i in 0..64 {
                for j in 0..n {
                    let want: f64 = (0..64).map(|k| ea[i * 64 + k] * b_at(k, j)).sum();
                    let scale: f64 = (0..64).map(|k| (ea[i * 64 + k] * b_at(k, j)).abs()).sum();
                    let got = f64::from(c[i * n + j]);
                    assert!(
                        (got - want).abs()
                            <= 64.0 * 2f64.powi(-23) * scale + 2f64.powi(-24) * want.abs(),
                        "{input} n {n} {a_form:?} {b_major:?} c[{i}][{j}] = {got}, want {want}"
                    );
                }
            }
        }
    }
}

/// `source`'s kernel through the NVVM writer and libnvvm for compute_90a: its PTX.
pub(crate) fn ptx_of(nvvm: &crate::nvvm::Nvvm, source: &str, kernel: &str) -> String {
    let m = module(source, kernel);
    let text = crate::back::nvvm::write_string(&m, &Default::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    let options = crate::nvvm::CompileOptions {
        arch: "compute_90a".into(),
        ..Default::default()
    };
    nvvm.compile(&text, &options)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `ptx` through `ptxas -arch=sm_90a -v` in `dir` (which must accept it): its log.
pub(crate) fn assemble(
    ptxas: &std::path::Path,
    dir: &std::path::Path,
    name: &str,
    ptx: &str,
) -> String {
    let path = dir.join(format!("{name}.ptx"));
    std::fs::write(&path, ptx).unwrap();
    let out = std::process::Command::new(ptxas)
        .args(["-arch=sm_90a", "-v", "-o"])
        .arg(dir.join(format!("{name}.cubin")))
        .arg(&path)
        .output()
        .expect("run ptxas");
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{name} ptxas: {log}");
    eprintln!(
        "{name}: {}",
        log.lines()
            .filter(|l| l.contains("registers") || l.contains("spill"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    log
}

/// Each new form through the NVVM writer, libnvvm (compute_90a) and `ptxas -v`
/// (sm_90a): the instruction is in the PTX, ptxas accepts its A operand and transposes,
/// and up to N = 128 nothing spills. Skipped without `CUDAJIT_NVVM_PATH`/`CUDAJIT_PTXAS`.
/// (The tf32 and integer forms: `wgmma_types_tests`.)
#[test]
fn every_new_form_compiles_for_sm_90a() {
    let Some((nvvm, ptxas)) = crate::nvvm::test_toolchain() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for (n, input) in [(64usize, "bf16"), (128, "f16"), (256, "bf16")] {
        for (a_form, b_major) in FORMS {
            let source = forms_source(n, input, a_form, b_major);
            let ptx = ptx_of(&nvvm, &source, "wg_forms");
            let instruction =
                format!("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{input}.{input}");
            assert!(ptx.contains(&instruction), "{instruction} missing:\n{ptx}");
            let name = format!("n{n}{input}{a_form:?}{b_major:?}").replace(['(', ')'], "");
            let log = assemble(&ptxas, tmp.path(), &name, &ptx);
            // Every function of the module spill-free up to N = 128 (ptxas 13.0: the RS
            // test kernel at N = 256, 128 accumulators and its 16 A registers live at
            // once, spills 124 bytes; attention's P V is N = D <= 128).
            let spills = log.lines().filter(|l| l.contains("spill stores")).count();
            let clean = log
                .lines()
                .filter(|l| l.contains(" 0 bytes spill stores"))
                .count();
            assert!(
                spills > 0 && (n > 128 || clean == spills),
                "{name} spills: {log}"
            );
        }
    }
}
