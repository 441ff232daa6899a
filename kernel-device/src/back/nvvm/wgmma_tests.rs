//! The inline PTX of each wgmma form, as text (libnvvm and ptxas compile every form in
//! `back::sim::wgmma`'s tests, from kernels).

use super::*;
use crate::proc::wgmma::MmaElem;

#[test]
fn the_asm_ties_n_over_2_accumulators_and_takes_two_descriptors() {
    let combo = WgmmaCombo::ss(256, MmaElem::BF16);
    let c: Vec<String> = (0..128).map(|i| format!("%c{i}")).collect();
    let call = wgmma_call(combo, &["%da".into()], "%db", "%s", &c);
    assert!(call.contains("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {$0, $1,"));
    assert!(call.contains("$127}, $128, $129, p, 1, 1, 0, 0;"), "{call}");
    assert!(call.contains("setp.ne.b32 p, $130, 0;"));
    // 128 outputs, 2 descriptors, scale-d, 128 tied inputs, the clobber.
    let constraints = call.split('"').nth(3).unwrap();
    assert_eq!(constraints.split(',').count(), 128 + 3 + 128 + 1);
    assert!(constraints.ends_with(",127,~{memory}"));
    assert_eq!(call.matches("float %c").count(), 128);
    assert_eq!(
        protocol_instruction(WgmmaOp::Wait { pending: 1 }).unwrap(),
        "wgmma.wait_group.sync.aligned 1;"
    );
}

/// fp8: k32, the e4m3 type in the instruction, and no transpose immediates (ptxas
/// rejects them for fp8).
#[test]
fn the_e4m3_asm_is_k32_without_transpose_operands() {
    let combo = WgmmaCombo::ss(64, MmaElem::E4M3);
    let c: Vec<String> = (0..32).map(|i| format!("%c{i}")).collect();
    let call = wgmma_call(combo, &["%da".into()], "%db", "%s", &c);
    assert!(call.contains("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0, $1,"));
    assert!(call.contains("$31}, $32, $33, p, 1, 1; }"), "{call}");
    assert!(call.contains("setp.ne.b32 p, $34, 0;"));
}

/// The RS form: A as four `i32` registers in braces where the descriptor was, B's
/// transpose immediate alone (no A transpose).
#[test]
fn the_rs_asm_takes_four_a_registers_and_one_transpose() {
    let combo = WgmmaCombo {
        a: WgmmaA::Registers,
        b: crate::ir::WgmmaMajor::MN,
        ..WgmmaCombo::ss(64, MmaElem::BF16)
    };
    let a: Vec<String> = (0..4).map(|i| format!("%a{i}")).collect();
    let c: Vec<String> = (0..32).map(|i| format!("%c{i}")).collect();
    let call = wgmma_call(combo, &a, "%db", "%s", &c);
    assert!(call.contains("m64n64k16.f32.bf16.bf16 {$0, $1,"), "{call}");
    assert!(
        call.contains("$31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1; }"),
        "{call}"
    );
    assert!(call.contains("setp.ne.b32 p, $37, 0;"), "{call}");
    let constraints = call.split('"').nth(3).unwrap();
    assert!(constraints.contains("=f,r,r,r,r,l,r,0,"), "{constraints}");
    assert_eq!(call.matches("i32 %a").count(), 4);
    // Transposed descriptors: both immediates.
    let trans_ab = WgmmaCombo {
        a: WgmmaA::Shared(crate::ir::WgmmaMajor::MN),
        ..combo
    };
    let call = wgmma_call(trans_ab, &["%da".into()], "%db", "%s", &c);
    assert!(call.contains("$31}, $32, $33, p, 1, 1, 1, 1; }"), "{call}");
}

// Hopper: wgmma (setmaxnreg)
#[test]
fn setmaxnreg_prints_its_constant_count() {
    let op = |increase, count| protocol_instruction(WgmmaOp::SetMaxNreg { increase, count });
    assert_eq!(
        op(true, 232).unwrap(),
        "setmaxnreg.inc.sync.aligned.u32 232;"
    );
    assert_eq!(
        op(false, 40).unwrap(),
        "setmaxnreg.dec.sync.aligned.u32 40;"
    );
}

/// The integer forms: i32 accumulators ("=r", tied), both signednesses in the
/// instruction and nothing after the predicate (no scale or transpose immediates).
#[test]
fn the_integer_asm_has_i32_accumulators_and_no_immediates() {
    let combo = WgmmaCombo {
        input_b: MmaElem::U8,
        ..WgmmaCombo::ss(16, MmaElem::I8)
    };
    let c: Vec<String> = (0..8).map(|i| format!("%c{i}")).collect();
    let call = wgmma_call(combo, &["%da".into()], "%db", "%s", &c);
    assert!(call.contains("m64n16k32.s32.s8.u8 {$0, $1,"), "{call}");
    assert!(call.contains("$7}, $8, $9, p; }"), "{call}");
    assert!(call.starts_with("call { i32, i32, i32, i32, i32, i32, i32, i32 } asm"));
    let constraints = call.split('"').nth(3).unwrap();
    assert!(constraints.starts_with("=r,=r,"), "{constraints}");
    assert!(constraints.contains("=r,l,l,r,0,"), "{constraints}");
    assert_eq!(call.matches("i32 %c").count(), 8);
}

/// tf32 RS: four `i32` A registers (the f32 bits), scales but no transpose.
#[test]
fn the_tf32_rs_asm_takes_four_a_registers_and_no_transpose() {
    let combo = WgmmaCombo {
        a: WgmmaA::Registers,
        ..WgmmaCombo::ss(8, MmaElem::Tf32)
    };
    let a: Vec<String> = (0..4).map(|i| format!("%a{i}")).collect();
    let c: Vec<String> = (0..4).map(|i| format!("%c{i}")).collect();
    let call = wgmma_call(combo, &a, "%db", "%s", &c);
    assert!(
        call.contains("m64n8k8.f32.tf32.tf32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, $8, p, 1, 1; }"),
        "{call}"
    );
}
