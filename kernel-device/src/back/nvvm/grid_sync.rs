//! `grid_sync()`: the grid-wide barrier, written in NVVM IR (no cudadevrt).
//!
//! A cooperative launch (`cuLaunchCooperativeKernel`) gives each grid a driver-owned
//! workspace `{u32 size; u32 barrier}` whose address sits in the PTX environment
//! registers `%envreg1` (high half) and `%envreg2` (low half); cooperative groups and
//! CCCL read it the same way. The driver owns it per launch (concurrent grids do not
//! share a word), and the protocol leaves it as it found it, so nothing ever needs
//! resetting, also if the driver hands the same word to the next launch:
//!
//! - block (0,0,0) adds `0x8000_0000 - (blocks - 1)`, every other block adds 1, so the
//!   arrivals of one barrier sum to exactly `0x8000_0000`: the top bit flips once, at
//!   the last arrival, and the low 31 bits are back where they were (the driver starts
//!   them at 0, so no partial sum flips the bit early);
//! - each block's thread 0 spins until the top bit differs from the value its own
//!   arrival saw; a fast block's arrival at the next barrier cannot flip it back
//!   before every block has arrived there too.
//!
//! Around it: `barrier0` (the block waits for its leader), then the leader's arrival
//! as a release and its polls as acquires at GPU scope, so writes made before the
//! barrier by any thread of the grid are visible to every thread after it. From sm_70
//! on these are `atom.release.gpu` and `ld.acquire.gpu` (what cooperative groups
//! emits there); before, `membar.gl` around a plain atomic and volatile polls. The
//! choice is `__nvvm_reflect("__CUDA_ARCH")`, folded by libnvvm for the target, so
//! the NVVM IR (and its cache key) stays the same for every architecture.
//!
//! Where the environment registers hold no workspace (0: a launch that was not
//! cooperative, or a driver that stopped providing one), the barrier uses a word of
//! the module's own, `@__cudajit_grid_barrier`, with the same protocol: `launch!`
//! has checked that the blocks are co-resident, so the barrier still holds, and a
//! foreign launch whose blocks are not co-resident ends with the timeout below.
//!
//! A thread that panics ends, so its block may never arrive (when it was the block's
//! thread 0): the grid would wait forever. Every 256 polls of the barrier the leader
//! therefore also reads the launch's panic record (host-mapped, so rarely); once some
//! thread has panicked it stops waiting, and the block's final barrier (`barrier0.or`
//! of "aborted") ends every thread of the block. The kernel then finishes and the
//! launch reports the panic, never a hang. An aborting leader first takes its arrival
//! back (a compare-and-swap, unless the barrier completed meanwhile, in which case it
//! simply passes), so an abandoned barrier leaves the word as it found it: any subset
//! of the arrivals sums to less than `0x8000_0000`, so taking some back never flips
//! the bit, and the low bits are 0 again once every arrived block has left. Whether
//! the driver reuses the workspace for the next launch or not, that launch starts
//! from a clean word.
//!
//! A block that never comes without panicking (all its threads returned early, or its
//! thread 0 did: CUDA's rule is that every thread calls the barrier) would hang the
//! grid too: a leader that has waited [`TIMEOUT_NS`] (`%globaltimer`) takes its arrival
//! back the same way and reports [`TIMED_OUT`] at the call, and its block ends.

use std::fmt::Write as _;

use super::state::FunctionWriter;
use super::state::Writer;
use super::{Error, PANIC_RECORD_PARAM};
use crate::ir::{Expr, Handle};

const HELPER: &str = "__cudajit_grid_sync";
/// The module's own barrier word, used when the launch provides no workspace.
const OWN_WORD: &str = "__cudajit_grid_barrier";
/// The string `__nvvm_reflect` is asked about.
const ARCH_QUERY: &str = "__cudajit_cuda_arch";

/// The panic message when some block did not reach the barrier in time.
pub const TIMED_OUT: &str = "grid_sync(): not every block reached the barrier within 10 s \
     (every thread of every block must call grid_sync(), as in CUDA; a block that returned \
     early never arrives)";

/// How long a block waits at the barrier before it reports [`TIMED_OUT`], in ns of
/// `%globaltimer`: far beyond any real imbalance between blocks, short enough that a
/// block that will never come is an `Err` rather than a hung GPU.
const TIMEOUT_NS: u64 = 10_000_000_000;

/// What the helper returns when the barrier timed out (0: it passed).
const STATUS_TIMED_OUT: u32 = 1;

impl FunctionWriter<'_, '_> {
    /// Calls the module's grid barrier; panics at `site` if the barrier timed out.
    pub fn grid_sync(&mut self, site: Handle<Expr>) -> Result<(), Error> {
        self.w.uses_grid_sync = true;
        let status = self.def(
            "grid.status",
            format!("call i32 @{HELPER}(i64 {PANIC_RECORD_PARAM})"),
        );
        let in_time = self.def(
            "grid.in.time",
            format!("icmp ne i32 {status}, {STATUS_TIMED_OUT}"),
        );
        self.panic_unless(&in_time, site, TIMED_OUT, ("0", "0"))
    }
}

/// The text of `@__cudajit_grid_sync`, declaring the intrinsics it uses.
pub fn helper_definition(w: &mut Writer<'_>) -> String {
    let regs = ["tid", "ctaid", "nctaid"]
        .iter()
        .flat_map(|reg| ["x", "y", "z"].map(|axis| format!("{reg}.{axis}")));
    for reg in regs {
        let name = format!("llvm.nvvm.read.ptx.sreg.{reg}");
        w.declare(&name, format!("declare i32 @{name}()"));
    }
    for name in ["llvm.nvvm.barrier0", "llvm.nvvm.membar.gl"] {
        w.declare(name, format!("declare void @{name}()"));
    }
    w.declare(
        "llvm.nvvm.barrier0.or",
        "declare i32 @llvm.nvvm.barrier0.or(i32)".into(),
    );
    w.declare("__nvvm_reflect", "declare i32 @__nvvm_reflect(i8*)".into());
    let or3 = |name: &str, reg: &str| {
        let mut s = String::new();
        for axis in ["x", "y", "z"] {
            let _ = writeln!(
                s,
                "  %{name}.{axis} = call i32 @llvm.nvvm.read.ptx.sreg.{reg}.{axis}()"
            );
        }
        let _ = write!(
            s,
            "  %{name}.xy = or i32 %{name}.x, %{name}.y\n  %{name}.xyz = or i32 %{name}.xy, %{name}.z\n"
        );
        s
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; the grid-wide barrier on the cooperative launch's workspace: 0 passed, \
         {STATUS_TIMED_OUT} timed out"
    );
    let _ = writeln!(
        out,
        "@{ARCH_QUERY} = private unnamed_addr constant [12 x i8] c\"__CUDA_ARCH\\00\""
    );
    let _ = writeln!(
        out,
        "@{OWN_WORD} = internal addrspace(1) global i32 0, align 4\n"
    );
    let _ = writeln!(
        out,
        "define internal i32 @{HELPER}(i64 %record) nounwind {{"
    );
    let _ = write!(
        out,
        "entry:
  %ws.hi = call i32 asm sideeffect \"mov.u32 $0, %envreg1;\", \"=r\"()
  %ws.lo = call i32 asm sideeffect \"mov.u32 $0, %envreg2;\", \"=r\"()
  %ws.hi64 = zext i32 %ws.hi to i64
  %ws.lo64 = zext i32 %ws.lo to i64
  %ws.high = shl i64 %ws.hi64, 32
  %ws = or i64 %ws.high, %ws.lo64
  %cooperative = icmp ne i64 %ws, 0
  %ws.barrier = add i64 %ws, 4
  %own.barrier = ptrtoint i32 addrspace(1)* @{OWN_WORD} to i64
  %barrier.addr = select i1 %cooperative, i64 %ws.barrier, i64 %own.barrier
  br label %block.sync
block.sync:
  call void @llvm.nvvm.barrier0()
{tid}  %leader = icmp eq i32 %tid.xyz, 0
  br i1 %leader, label %arrive, label %leave
arrive:
{ctaid}  %first = icmp eq i32 %ctaid.xyz, 0
  %nctaid.x = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %nctaid.y = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
  %nctaid.z = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
  %blocks.xy = mul i32 %nctaid.x, %nctaid.y
  %blocks = mul i32 %blocks.xy, %nctaid.z
  %others = sub i32 %blocks, 1
  %first.share = sub i32 -2147483648, %others
  %share = select i1 %first, i32 %first.share, i32 1
  %barrier = inttoptr i64 %barrier.addr to i32 addrspace(1)*
  %arch = call i32 @__nvvm_reflect(i8* getelementptr inbounds ([12 x i8], [12 x i8]* @{ARCH_QUERY}, i64 0, i64 0))
  %acq.rel = icmp sge i32 %arch, 700
  br i1 %acq.rel, label %arrive.release, label %arrive.fenced
arrive.release:
  %arrived.release = call i32 asm sideeffect \"atom.release.gpu.global.add.u32 $0, [$1], $2;\", \"=r,l,r,~{{memory}}\"(i64 %barrier.addr, i32 %share)
  br label %counted
arrive.fenced:
  call void @llvm.nvvm.membar.gl()
  %arrived.fenced = atomicrmw add i32 addrspace(1)* %barrier, i32 %share monotonic
  br label %counted
counted:
  %arrived = phi i32 [ %arrived.release, %arrive.release ], [ %arrived.fenced, %arrive.fenced ]
  %started = call i64 asm sideeffect \"mov.u64 $0, %globaltimer;\", \"=l\"()
  br label %spin
spin:
  %spins = phi i32 [ 0, %counted ], [ %spins.next, %spin.again ]
  br i1 %acq.rel, label %poll.acquire, label %poll.volatile
poll.acquire:
  %now.acquire = call i32 asm sideeffect \"ld.acquire.gpu.global.u32 $0, [$1];\", \"=r,l,~{{memory}}\"(i64 %barrier.addr)
  br label %polled
poll.volatile:
  %now.volatile = load volatile i32, i32 addrspace(1)* %barrier, align 4
  br label %polled
polled:
  %now = phi i32 [ %now.acquire, %poll.acquire ], [ %now.volatile, %poll.volatile ]
  %changed = xor i32 %now, %arrived
  %flipped = icmp slt i32 %changed, 0
  br i1 %flipped, label %released, label %waiting
waiting:
  %spins.next = add i32 %spins, 1
  %poll.bits = and i32 %spins.next, 255
  %poll = icmp eq i32 %poll.bits, 0
  br i1 %poll, label %poll.panic, label %spin.again
poll.panic:
  %has.record = icmp ne i64 %record, 0
  br i1 %has.record, label %poll.flag, label %poll.clock
poll.flag:
  %flag.ptr = inttoptr i64 %record to i32*
  %flag = load volatile i32, i32* %flag.ptr, align 4
  %panicked = icmp ne i32 %flag, 0
  br i1 %panicked, label %undo, label %poll.clock
poll.clock:
  %clock = call i64 asm sideeffect \"mov.u64 $0, %globaltimer;\", \"=l\"()
  %waited = sub i64 %clock, %started
  %late = icmp ugt i64 %waited, {TIMEOUT_NS}
  br i1 %late, label %undo, label %spin.again
undo:
  %timed.out = phi i32 [ 0, %poll.flag ], [ 1, %poll.clock ]
  br label %undo.try
undo.try:
  %current = load volatile i32, i32 addrspace(1)* %barrier, align 4
  %current.changed = xor i32 %current, %arrived
  %completed = icmp slt i32 %current.changed, 0
  br i1 %completed, label %released.fence, label %undo.cas
undo.cas:
  %undone = sub i32 %current, %share
  %swap = cmpxchg volatile i32 addrspace(1)* %barrier, i32 %current, i32 %undone monotonic monotonic
  %swapped = extractvalue {{ i32, i1 }} %swap, 1
  br i1 %swapped, label %leave, label %undo.try
spin.again:
  br label %spin
released:
  br i1 %acq.rel, label %leave, label %released.fence
released.fence:
  call void @llvm.nvvm.membar.gl()
  br label %leave
leave:
  %aborted = phi i32 [ 0, %block.sync ], [ 0, %released ], [ 0, %released.fence ], [ 1, %undo.cas ]
  %reports = phi i32 [ 0, %block.sync ], [ 0, %released ], [ 0, %released.fence ], [ %timed.out, %undo.cas ]
  %any.aborted = call i32 @llvm.nvvm.barrier0.or(i32 %aborted)
  %abort = icmp ne i32 %any.aborted, 0
  br i1 %abort, label %stop, label %done
stop:
  %report = icmp ne i32 %reports, 0
  br i1 %report, label %timed.out.exit, label %end.thread
timed.out.exit:
  ; the leader reports the timeout at the call (a panic there)
  ret i32 {STATUS_TIMED_OUT}
end.thread:
  ; a thread panicked or timed out: end this one too (the launch reports it)
  call void asm sideeffect \"exit;\", \"\"()
  unreachable
done:
  ret i32 0
}}
",
        tid = or3("tid", "tid"),
        ctaid = or3("ctaid", "ctaid"),
    );
    out
}
