//! The body of the module's panic helper, `@__cudajit_panic(record, site, operand0,
//! operand1)` (the protocol and the record's layout: `panic`), written as one block
//! of inline PTX rather than as LLVM instructions.
//!
//! Why PTX: libnvvm's time is a first call's largest part, and a checked kernel's
//! module paid for the helper as a function of its own, optimised and lowered through
//! LLVM's code generator at every compile. As inline assembly it is one call that
//! libnvvm passes through: the bench's checked `vecadd` compiled in 10.6 ms of libnvvm
//! CPU time instead of 13.3 (median of 21, `-opt=3 -generate-line-info`, libnvvm
//! 13.0.88, development machine; the unchecked kernel 7.7). ptxas sees the same
//! instructions as before, in a function with fewer live registers: of the snapshot
//! kernels that panic, most use 1-5 registers fewer on sm_90 (`vecadd` 22 -> 17).
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
/// `$1` the site, `$2`/`$3` the operands, `$4` the address of the module's tag.
const BODY: &[&str] = &[
    "{",
    ".reg .pred %panic_p<2>;",
    ".reg .b32 %panic_r<7>;",
    ".reg .b64 %panic_tag;",
    "setp.eq.u64 %panic_p0, $0, 0;",
    "@%panic_p0 exit;",
    "atom.cas.b32 %panic_r0, [$0], 0, 1;",
    "setp.ne.u32 %panic_p1, %panic_r0, 0;",
    "@%panic_p1 exit;",
    "st.volatile.u32 [$0+4], $1;",
    "st.volatile.u64 [$0+8], $2;",
    "st.volatile.u64 [$0+16], $3;",
    // block id = ctaid.x + ctaid.y * nctaid.x + ctaid.z * nctaid.x * nctaid.y
    "mov.u32 %panic_r1, %ctaid.x;",
    "mov.u32 %panic_r2, %ctaid.y;",
    "mov.u32 %panic_r3, %ctaid.z;",
    "mov.u32 %panic_r4, %nctaid.x;",
    "mov.u32 %panic_r5, %nctaid.y;",
    "mul.lo.u32 %panic_r6, %panic_r4, %panic_r5;",
    "mad.lo.u32 %panic_r6, %panic_r3, %panic_r6, %panic_r1;",
    "mad.lo.u32 %panic_r6, %panic_r2, %panic_r4, %panic_r6;",
    "st.volatile.u32 [$0+24], %panic_r6;",
    // thread id, the same over tid and ntid
    "mov.u32 %panic_r1, %tid.x;",
    "mov.u32 %panic_r2, %tid.y;",
    "mov.u32 %panic_r3, %tid.z;",
    "mov.u32 %panic_r4, %ntid.x;",
    "mov.u32 %panic_r5, %ntid.y;",
    "mul.lo.u32 %panic_r6, %panic_r4, %panic_r5;",
    "mad.lo.u32 %panic_r6, %panic_r3, %panic_r6, %panic_r1;",
    "mad.lo.u32 %panic_r6, %panic_r2, %panic_r4, %panic_r6;",
    "st.volatile.u32 [$0+28], %panic_r6;",
    "ld.volatile.global.u64 %panic_tag, [$4];",
    "st.volatile.u64 [$0+32], %panic_tag;",
    "membar.sys;",
    "atom.exch.b32 %panic_r0, [$0], 2;",
    "exit;",
    "}",
];

/// The text of `@__cudajit_panic`: one inline-PTX call with the record, the site, the
/// operands and the module tag's address.
pub fn helper_definition() -> String {
    // `\0A\09`: a newline and a tab in LLVM's string syntax, so that the PTX reads as
    // libnvvm's own.
    let body = BODY.join("\\0A\\09");
    format!(
        "; records the first device-side panic of the launch for the host (see the cudajit kernel ABI) and ends the thread
define internal void @{HELPER}(i64 %slot, i32 %site, i64 %op0, i64 %op1) cold noinline noreturn nounwind {{
entry:
  call void asm sideeffect \"{body}\", \"l,r,l,l,l,~{{memory}}\"(i64 %slot, i32 %site, i64 %op0, i64 %op1, i64 ptrtoint (i64 addrspace(1)* @{MODULE_TAG_SYMBOL} to i64))
  unreachable
}}
"
    )
}
