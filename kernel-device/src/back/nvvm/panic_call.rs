//! The body of the module's panic helper, `@__cudajit_panic(record, site, operand0,
//! operand1)` (the protocol and the record's layout: `panic`), written as one block
//! of inline PTX rather than as LLVM instructions.
//!
//! Why PTX: libnvvm's time is a first call's largest part, and a checked kernel's
//! module paid for the helper as a function of its own, optimised and lowered through
//! LLVM's code generator at every compile. As inline assembly it is one call that
//! libnvvm passes through. Measured on the development machine (libnvvm 13.0.88,
//! `-opt=3`, CPU time of the compiling thread): the bench's checked `vecadd` as the JIT
//! compiles it (line tables on) 9.7 -> 8.2 ms, median of 25 (min 8.7 -> 6.8; the
//! unchecked kernel 5.7); the 56 snapshot units that panic, 1,143 -> 1,047 ms in all,
//! with the same register count from ptxas (sm_90) for every one of their kernels.
//!
//! The instructions are the ones libnvvm made of the LLVM helper: a claim of the
//! record's flag 0 -> 1 (`atom.cas`, relaxed: only the winner writes), volatile
//! stores of the site, the operands, the block's and the thread's linear ids and the
//! module's tag, `membar.sys` so that the host sees them before the flag, the flag
//! published as 2 (`atom.exch`), and `exit` on every path (never `trap`).

use super::MODULE_TAG_SYMBOL;

/// The helper's symbol; every failed check calls it.
pub const HELPER: &str = "__cudajit_panic";

/// The PTX of the helper's body. Operands: `$0` the record's address (0: none),
/// `$1` the site, `$2`/`$3` the operands. Each linear id is two multiply-adds over
/// three live values, and the tag is read through its symbol: the helper needs no
/// more registers than libnvvm's code for the LLVM helper did (ptxas counts them in
/// every kernel that calls it). The names are the helper's own (`%panic_*`): an
/// inline block's declarations would shadow libnvvm's `%r1`, `%rd1` that the
/// operands are substituted as.
const BODY: &[&str] = &[
    "{",
    ".reg .pred %panic_p;",
    ".reg .b32 %panic_r<3>;",
    ".reg .b64 %panic_tag;",
    "setp.eq.u64 %panic_p, $0, 0;",
    "@%panic_p exit;",
    "atom.cas.b32 %panic_r0, [$0], 0, 1;",
    "setp.ne.u32 %panic_p, %panic_r0, 0;",
    "@%panic_p exit;",
    "st.volatile.u32 [$0+4], $1;",
    "st.volatile.u64 [$0+8], $2;",
    "st.volatile.u64 [$0+16], $3;",
    // block id = (ctaid.z * nctaid.y + ctaid.y) * nctaid.x + ctaid.x
    "mov.u32 %panic_r0, %nctaid.y;",
    "mov.u32 %panic_r1, %ctaid.z;",
    "mov.u32 %panic_r2, %ctaid.y;",
    "mad.lo.u32 %panic_r0, %panic_r1, %panic_r0, %panic_r2;",
    "mov.u32 %panic_r1, %nctaid.x;",
    "mov.u32 %panic_r2, %ctaid.x;",
    "mad.lo.u32 %panic_r0, %panic_r0, %panic_r1, %panic_r2;",
    "st.volatile.u32 [$0+24], %panic_r0;",
    // thread id, the same over tid and ntid
    "mov.u32 %panic_r0, %ntid.y;",
    "mov.u32 %panic_r1, %tid.z;",
    "mov.u32 %panic_r2, %tid.y;",
    "mad.lo.u32 %panic_r0, %panic_r1, %panic_r0, %panic_r2;",
    "mov.u32 %panic_r1, %ntid.x;",
    "mov.u32 %panic_r2, %tid.x;",
    "mad.lo.u32 %panic_r0, %panic_r0, %panic_r1, %panic_r2;",
    "st.volatile.u32 [$0+28], %panic_r0;",
    "ld.volatile.global.u64 %panic_tag, [MODULE_TAG];",
    "st.volatile.u64 [$0+32], %panic_tag;",
    "membar.sys;",
    "atom.exch.b32 %panic_r0, [$0], 2;",
    "exit;",
    "}",
];

/// The text of `@__cudajit_panic`: one inline-PTX call with the record, the site and
/// the operands.
pub fn helper_definition() -> String {
    // `\0A\09`: a newline and a tab in LLVM's string syntax, so that the PTX reads as
    // libnvvm's own.
    let body = BODY
        .join("\\0A\\09")
        .replace("MODULE_TAG", MODULE_TAG_SYMBOL);
    format!(
        "; records the first device-side panic of the launch for the host (see the cudajit kernel ABI) and ends the thread
define internal void @{HELPER}(i64 %slot, i32 %site, i64 %op0, i64 %op1) cold noinline noreturn nounwind {{
entry:
  call void asm sideeffect \"{body}\", \"l,r,l,l,~{{memory}}\"(i64 %slot, i32 %site, i64 %op0, i64 %op1)
  unreachable
}}
"
    )
}
