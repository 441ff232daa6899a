//! Rewrites of the PTX libnvvm emits, around defects of `ptxas` that change a result.
//!
//! 16-bit `neg.s16` and `abs.s16` (issue 22): a GPU has no 16-bit registers, so ptxas
//! keeps an `i16` sign-extended in a 32-bit one and assumes that the negation or the
//! absolute value of such a register is still a sign-extended 16-bit value. It is not
//! for `i16::MIN`, whose negation and absolute value wrap to `i16::MIN` in Rust (and in
//! PTX's 16-bit semantics) but are +32768 in the 32-bit register. Measured on an H200
//! (ptxas 13.0, sm_90): `abs.s16` then `setp.gt.s16 .., 62` became `IABS` then a
//! 32-bit `ISETP.GT` with no sign extension between them, so `i16::MIN.abs() < 63` was
//! false; `neg.s16` then `cvt.s64.s16` gave 32768 for `(0i16).wrapping_sub(i16::MIN)
//! as i64`. LLVM makes these instructions from any negation it finds (`0 - x`,
//! `x * -1`, the `abs` idiom), so the writer cannot avoid them; here each one becomes
//! the same operation in 32 bits and an explicit truncation, whose result ptxas
//! sign-extends before its next signed use.

use std::borrow::Cow;

/// `ptx` with every `neg.s16`/`abs.s16` rewritten (borrowed when there is none).
pub fn fix_narrow_negation(ptx: &str) -> Cow<'_, str> {
    if !ptx.contains("neg.s16") && !ptx.contains("abs.s16") {
        return Cow::Borrowed(ptx);
    }
    let mut out = String::with_capacity(ptx.len() + 256);
    for line in ptx.split_inclusive('\n') {
        match rewrite(line) {
            Some(fixed) => out.push_str(&fixed),
            None => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// `neg.s16 d, a;` / `abs.s16 d, a;` in 32 bits; a guard predicate stays on the one
/// instruction that writes `d`.
fn rewrite(line: &str) -> Option<String> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let (guard, body) = match body.strip_prefix('@') {
        Some(rest) => {
            let (pred, rest) = rest.split_once(char::is_whitespace)?;
            (format!("@{pred} "), rest.trim_start())
        }
        None => (String::new(), body),
    };
    let (op, rest) = body.split_once(char::is_whitespace)?;
    let op32 = match op {
        "neg.s16" => "neg.s32",
        "abs.s16" => "abs.s32",
        _ => return None,
    };
    let (operands, tail) = rest.split_once(';')?;
    let (d, a) = operands.split_once(',')?;
    let (d, a) = (d.trim(), a.trim());
    let ends_line = if tail.ends_with('\n') { "\n" } else { "" };
    // A scope of its own: the temporary's name cannot collide with the function's.
    Some(format!(
        "{indent}{{ .reg .b32 %cj_w; cvt.s32.s16 %cj_w, {a}; {op32} %cj_w, %cj_w; {guard}cvt.u16.u32 {d}, %cj_w; }}{tail_rest}{ends_line}",
        tail_rest = tail.trim_end_matches('\n'),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_negations_become_32_bit_operations() {
        let ptx = "\tld.global.nc.u16 \t%rs1, [%rd11];\n\tabs.s16 \t%rs19, %rs1;\n\tsetp.gt.s16 \t%p6, %rs19, 62;\n\tneg.s16 \t%rs3, %rs2;\n";
        let fixed = fix_narrow_negation(ptx);
        assert_eq!(
            fixed,
            "\tld.global.nc.u16 \t%rs1, [%rd11];\n\
             \t{ .reg .b32 %cj_w; cvt.s32.s16 %cj_w, %rs1; abs.s32 %cj_w, %cj_w; cvt.u16.u32 %rs19, %cj_w; }\n\
             \tsetp.gt.s16 \t%p6, %rs19, 62;\n\
             \t{ .reg .b32 %cj_w; cvt.s32.s16 %cj_w, %rs2; neg.s32 %cj_w, %cj_w; cvt.u16.u32 %rs3, %cj_w; }\n"
        );
    }

    #[test]
    fn predicated_and_other_widths_are_kept_right() {
        let ptx = "\t@%p1 neg.s16 \t%rs3, %rs2;\n\tneg.s32 \t%r1, %r2;\n\tabs.f32 \t%f2, %f1;";
        let fixed = fix_narrow_negation(ptx);
        assert_eq!(
            fixed,
            "\t{ .reg .b32 %cj_w; cvt.s32.s16 %cj_w, %rs2; neg.s32 %cj_w, %cj_w; @%p1 cvt.u16.u32 %rs3, %cj_w; }\n\tneg.s32 \t%r1, %r2;\n\tabs.f32 \t%f2, %f1;"
        );
        assert!(matches!(
            fix_narrow_negation("neg.s32 %r1, %r2;"),
            Cow::Borrowed(_)
        ));
    }
}
