//! The tf32 and 8-bit integer wgmmas on the simulator, against references that know
//! neither the fragments nor the descriptor rules (f64 of the truncated tf32 inputs;
//! exact i64 for the integers), and each through libnvvm and ptxas for sm_90a. The
//! kernel states the PTX ISA's tf32 A fragment itself (rows `lane / 4 (+ 8)`, columns
//! `lane % 4 (+ 4)`).

use crate::back::sim::tests::{buffer_of, module, read_back, shape, slice};
use crate::back::sim::{run, Options};
use crate::ir::ScalarType;
use crate::proc::mma::tf32_operand;

/// Which new wgmma a generated kernel calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum NewForm {
    /// `wgmma_m64n<N>k8_f32_tf32`: A and B from shared tiles.
    Tf32,
    /// `wgmma_m64n<N>k8_f32_tf32_rs`: A from registers.
    Tf32Rs,
    /// `wgmma_m64n<N>k32_i32_<a>_<b>`.
    Int8(&'static str, &'static str),
}

impl NewForm {
    /// Elements of K per instruction, and per 128-byte swizzled row (the whole K).
    const fn k(self) -> (usize, usize) {
        match self {
            NewForm::Int8(..) => (32, 128),
            _ => (8, 32),
        }
    }

    fn types(self) -> (&'static str, &'static str, &'static str) {
        match self {
            NewForm::Int8(a, b) => (a, b, "i32"),
            _ => ("f32", "f32", "f32"),
        }
    }

    fn name(self, n: usize) -> String {
        match self {
            NewForm::Tf32 => format!("wgmma_m64n{n}k8_f32_tf32"),
            NewForm::Tf32Rs => format!("wgmma_m64n{n}k8_f32_tf32_rs"),
            NewForm::Int8(a, b) => format!("wgmma_m64n{n}k32_i32_{a}_{b}"),
        }
    }

    pub(crate) fn instruction(self, n: usize) -> String {
        let ptx = |t: &str| if t == "i8" { "s8" } else { "u8" };
        match self {
            NewForm::Int8(a, b) => format!(
                "wgmma.mma_async.sync.aligned.m64n{n}k32.s32.{}.{}",
                ptx(a),
                ptx(b)
            ),
            _ => format!("wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32"),
        }
    }
}

/// One warpgroup computes `c (64 x n) = a (64 x K) btᵀ`, `a` row-major, `bt` `n x K`
/// row-major (K-major B), K one 128-byte row (32 tf32, 128 bytes). Shared tiles are
/// 128B-swizzled (`[row][K]`, the 16-byte chunk `j` of row `r` at `j ^ (r % 8)`) and
/// filled element by element; a tf32 A from registers is loaded where the fragment
/// says, as its bits.
pub(crate) fn types_source(n: usize, form: NewForm) -> String {
    let (step, k) = form.k();
    let (ta_ty, tb_ty, acc) = form.types();
    let per16 = match form {
        NewForm::Int8(..) => 16,
        _ => 4,
    };
    let list = |p: &str| {
        (0..n / 2)
            .map(|i| format!("{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let sw = |row: &str, col: &str| {
        format!("{row} * {k} + ((({col}) / {per16}) ^ (({row}) % 8)) * {per16} + ({col}) % {per16}")
    };
    let mut s = format!(
        "#[kernel]\nfn wg_types(a: &[{ta_ty}], bt: &[{tb_ty}], c: &mut [{acc}]) {{\n    let ta = shared_array::<[{ta_ty}; {}]>();\n    let tb = shared_array::<[{tb_ty}; {}]>();\n    let t = thread_idx().x as usize;\n",
        64 * k,
        n * k
    );
    if form != NewForm::Tf32Rs {
        let per = 64 * k / 128;
        s += &format!("    for q in 0..{per} {{\n        let e = t * {per} + q;\n        let (m, kk) = (e / {k}, e % {k});\n        ta[{}] = a[e];\n    }}\n", sw("m", "kk"));
    }
    let per = n * k / 128;
    s += &format!("    for q in 0..{per} {{\n        let e = t * {per} + q;\n        let (nn, kk) = (e / {k}, e % {k});\n        tb[{}] = bt[e];\n    }}\n", sw("nn", "kk"));
    s += "    fence_proxy_async();\n    sync_threads();\n    let row = 16 * (t / 32) + (t % 32) / 4;\n";
    let zero = if acc == "i32" { "0i32" } else { "0.0f32" };
    for i in 0..n / 2 {
        s += &format!("    let mut c{i} = {zero};\n");
    }
    s += "    wgmma_fence();\n";
    for ks in 0..k / step {
        let da = match form {
            NewForm::Tf32Rs => (0..4)
                .map(|e| {
                    let at = format!(
                        "(row + {}) * {k} + {} + t % 4",
                        8 * (e % 2),
                        step * ks + 4 * (e / 2)
                    );
                    format!("a[{at}].to_bits(), ")
                })
                .collect::<String>(),
            _ => format!("wgmma_descriptor(ta, {}, 128, 0, 1024), ", ks * step),
        };
        s += &format!(
            "    let ({}) = {}({da}wgmma_descriptor(tb, {}, 128, 0, 1024), 1, {});\n",
            list("d"),
            form.name(n),
            ks * step,
            list("c")
        );
        for i in 0..n / 2 {
            s += &format!("    c{i} = d{i};\n");
        }
    }
    s += "    wgmma_commit_group();\n    wgmma_wait_group_0();\n    let col = 2 * (t % 4);\n";
    for i in 0..n / 2 {
        let r = if (i / 2) % 2 == 0 { "row" } else { "(row + 8)" };
        s += &format!("    c[{r} * {n} + col + {}] = c{i};\n", 8 * (i / 4) + i % 2);
    }
    s + "}\n"
}

#[test]
fn tf32_forms_match_the_f64_reference_of_their_truncated_inputs() {
    let mut rng = fastrand::Rng::new();
    for (n, form) in [
        (32usize, NewForm::Tf32),
        (16, NewForm::Tf32Rs),
        (64, NewForm::Tf32Rs),
    ] {
        let m = module(&types_source(n, form), "wg_types");
        // Unrounded f32: the low 13 bits are dropped by the tensor core.
        let a: Vec<f32> = (0..64 * 32).map(|_| rng.f32() * 4.0 - 2.0).collect();
        let bt: Vec<f32> = (0..n * 32).map(|_| rng.f32() * 4.0 - 2.0).collect();
        let (ba, bb) = (buffer_of(&a), buffer_of(&bt));
        let bc = buffer_of(&vec![f32::NAN; 64 * n]);
        let args = [
            slice(ScalarType::F32, &ba, a.len(), false),
            slice(ScalarType::F32, &bb, bt.len(), false),
            slice(ScalarType::F32, &bc, 64 * n, true),
        ];
        run(&m, "wg_types", &shape(1, 128), &args, &Options::default())
            .unwrap_or_else(|f| panic!("{form:?}: {f}"));
        let c: Vec<f32> = read_back(&bc, 64 * n);
        let tf = |x: f32| f64::from(tf32_operand(x));
        for i in 0..64 {
            for j in 0..n {
                let terms = (0..32).map(|k| tf(a[i * 32 + k]) * tf(bt[j * 32 + k]));
                let want: f64 = terms.clone().sum();
                let scale: f64 = terms.map(f64::abs).sum();
                let got = f64::from(c[i * n + j]);
                assert!(
                    (got - want).abs()
                        <= 32.0 * 2f64.powi(-23) * scale + 2f64.powi(-24) * want.abs(),
                    "{form:?} n {n} c[{i}][{j}] = {got}, want {want}"
                );
            }
        }
    }
}

/// Fresh random bytes of `ty` (`i8` or `u8`): their bits and values.
fn random_int8(rng: &mut fastrand::Rng, len: usize, ty: &str) -> (Vec<u8>, Vec<i64>) {
    let bits: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
    let values = bits
        .iter()
        .map(|&b| {
            if ty == "i8" {
                i64::from(b as i8)
            } else {
                i64::from(b)
            }
        })
        .collect();
    (bits, values)
}

#[test]
fn integer_forms_are_exact_for_each_signedness() {
    let mut rng = fastrand::Rng::new();
    for (n, a_ty, b_ty) in [
        (32usize, "i8", "u8"),
        (16, "u8", "i8"),
        (64, "i8", "i8"),
        (8, "u8", "u8"),
    ] {
        let form = NewForm::Int8(a_ty, b_ty);
        let m = module(&types_source(n, form), "wg_types");
        let (a, ea) = random_int8(&mut rng, 64 * 128, a_ty);
        let (bt, eb) = random_int8(&mut rng, n * 128, b_ty);
        let (ba, bb) = (buffer_of(&a), buffer_of(&bt));
        let bc = buffer_of(&vec![i32::MIN; 64 * n]);
        let elem = |t: &str| ScalarType::from_rust_name(t).unwrap();
        let args = [
            slice(elem(a_ty), &ba, a.len(), false),
            slice(elem(b_ty), &bb, bt.len(), false),
            slice(ScalarType::I32, &bc, 64 * n, true),
        ];
        run(&m, "wg_types", &shape(1, 128), &args, &Options::default())
            .unwrap_or_else(|f| panic!("{form:?}: {f}"));
        let c: Vec<i32> = read_back(&bc, 64 * n);
        for i in 0..64 {
            for j in 0..n {
                let want: i64 = (0..128).map(|k| ea[i * 128 + k] * eb[j * 128 + k]).sum();
                assert_eq!(i64::from(c[i * n + j]), want, "{form:?} n {n} c[{i}][{j}]");
            }
        }
    }
}

/// Each new form through the NVVM writer, libnvvm (compute_90a) and ptxas (sm_90a) at
/// small and the largest N. Skipped without `CUDAJIT_NVVM_PATH`/`CUDAJIT_PTXAS`.
#[test]
fn every_tf32_and_integer_form_compiles_for_sm_90a() {
    let Some((nvvm, ptxas)) = crate::nvvm::test_toolchain() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let forms = [
        NewForm::Tf32,
        NewForm::Tf32Rs,
        NewForm::Int8("i8", "i8"),
        NewForm::Int8("i8", "u8"),
        NewForm::Int8("u8", "i8"),
        NewForm::Int8("u8", "u8"),
    ];
    for n in [16usize, 256] {
        for form in forms {
            let name = format!("n{n}{form:?}").replace(['(', ')', '"', ',', ' '], "");
            let source = types_source(n, form);
            let ptx = super::forms_tests::ptx_of(&nvvm, &source, "wg_types");
            let instruction = form.instruction(n);
            assert!(ptx.contains(&instruction), "{instruction} missing:\n{ptx}");
            super::forms_tests::assemble(&ptxas, tmp.path(), &name, &ptx);
        }
    }
}
