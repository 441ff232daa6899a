//! Stand-ins for Hopper's warpgroup MMA (PTX `wgmma.*`, sm_90a; the rules are
//! `proc::wgmma`'s, the guide `docs/hopper.md`). Every one of them is collective over
//! a warpgroup of 128 threads; the host twin runs one thread, so they panic there with
//! the way out (the simulator).

pub(super) fn warpgroup_collective(what: &str) -> ! {
    panic!(
        "{what} needs the 128 threads of a warpgroup; the host twin runs one thread: \
         run the kernel on the simulator (`Device::simulator()`)"
    )
}

/// `wgmma.fence.sync.aligned`: before each batch of wgmmas (the accumulator and the
/// shared tiles are settled for them).
pub fn wgmma_fence() {
    warpgroup_collective("`wgmma_fence`")
}

/// Two `f32` rounded to nearest-even bf16 in one register, `lo` in the low 16 bits
/// (`cvt.rn.bf16x2.f32`): an `_rs` wgmma's A register from two accumulator registers
/// (`proc::wgmma::a_position`). Per thread: it runs on the host twin too.
pub fn pack_bf16x2(lo: f32, hi: f32) -> u32 {
    crate::proc::wgmma::pack_pair(crate::proc::mma::MmaElem::BF16, lo, hi)
}

/// [`pack_bf16x2`] for f16 (`cvt.rn.f16x2.f32`).
pub fn pack_f16x2(lo: f32, hi: f32) -> u32 {
    crate::proc::wgmma::pack_pair(crate::proc::mma::MmaElem::F16, lo, hi)
}

/// `fence.proxy.async.shared::cta`: this thread's ordinary stores to shared memory
/// become visible to wgmma's reads (then `sync_threads()`).
pub fn fence_proxy_async() {}

/// `setmaxnreg.inc.sync.aligned.u32 N` (warp specialisation): this warpgroup's threads
/// may use up to `N` registers each (24 to 256, a multiple of 8; `proc::setmaxnreg`),
/// taken from those other warpgroups gave back with [`setmaxnreg_dec`]. Registers are
/// not observable on the host twin: nothing to do there.
pub fn setmaxnreg_inc<const N: u32>() {}

/// `setmaxnreg.dec.sync.aligned.u32 N`: this warpgroup's threads give back registers
/// above `N` (a producer that only issues copies).
pub fn setmaxnreg_dec<const N: u32>() {}

/// `wgmma.commit_group.sync.aligned`: the warpgroup's uncommitted wgmmas become a group.
pub fn wgmma_commit_group() {
    warpgroup_collective("`wgmma_commit_group`")
}

/// `wgmma.wait_group.sync.aligned 0`: every committed group has completed (the
/// accumulators hold their results).
pub fn wgmma_wait_group_0() {
    warpgroup_collective("`wgmma_wait_group_0`")
}

/// `wgmma.wait_group.sync.aligned 1`: all but the newest committed group completed.
pub fn wgmma_wait_group_1() {
    warpgroup_collective("`wgmma_wait_group_1`")
}

/// `wgmma.wait_group.sync.aligned 2`.
pub fn wgmma_wait_group_2() {
    warpgroup_collective("`wgmma_wait_group_2`")
}

/// `wgmma.wait_group.sync.aligned 3`.
pub fn wgmma_wait_group_3() {
    warpgroup_collective("`wgmma_wait_group_3`")
}

/// The shared-memory matrix descriptor of `tile[index..]`: `swizzle_bytes` 0, 32, 64 or
/// 128; `leading_bytes` and `stride_bytes` as `proc::wgmma::TileLayout::descriptor`
/// computes them. The host twin has no shared window: it returns the fields with a
/// start address of `index`'s byte offset.
pub fn wgmma_descriptor<T>(
    tile: &mut [T],
    index: usize,
    swizzle_bytes: u32,
    leading_bytes: u32,
    stride_bytes: u32,
) -> u64 {
    let _ = &tile[index];
    let swizzle = crate::proc::wgmma::Swizzle::from_bytes(swizzle_bytes)
        .expect("swizzle_bytes is 0, 32, 64 or 128");
    crate::proc::wgmma::Descriptor {
        start: (index * std::mem::size_of::<T>()) as u64,
        leading: u64::from(leading_bytes),
        stride: u64::from(stride_bytes),
        swizzle,
    }
    .encode()
}

/// The accumulator type once per register (a type position repeated per `$c`).
macro_rules! per_register {
    ($c:ident, $acc:ty) => {
        $acc
    };
}
pub(crate) use per_register;

/// A warpgroup MMA's host stand-in: the operand parameters, then one accumulator
/// register each in and out. Collective over a warpgroup, so it panics on the host twin
/// with the way out. Every wgmma family below (and `super::wgmma_types`'s) is this.
macro_rules! warpgroup_mma_stand_in {
    ($what:literal, fn $name:ident($($p:ident: $pt:ty),*) -> $acc:ty, ($($c:ident)*)) => {
        #[doc = concat!("`", stringify!($name), "`: ", $what, " (see the module).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $name($($p: $pt,)* $($c: $acc),*) -> ($($crate::device_api::wgmma::per_register!($c, $acc)),*) {
            let _ = ($($p,)* $($c),*);
            $crate::device_api::wgmma::warpgroup_collective(concat!("`", stringify!($name), "`"))
        }
    };
}
pub(crate) use warpgroup_mma_stand_in;

/// `wgmma.mma_async.sync.aligned.m64n<N>k<K>.f32.<in>.<in>` (k16 for bf16/f16, k32 for
/// e4m3) with A and B from the descriptors (K-major; MN-major in the `_trans_*` forms):
/// `D = A B + C` (`scale_d` nonzero) or `A B`, on this thread's `N / 2`
/// accumulator registers (`proc::wgmma::acc_position` says which element each is).
macro_rules! wgmma_stand_in {
    (fn $name:ident($($c:ident)*)) => {
        warpgroup_mma_stand_in!("warpgroup MMA on registers",
            fn $name(desc_a: u64, desc_b: u64, scale_d: u32) -> f32, ($($c)*));
    };
}

wgmma_stand_in!(fn wgmma_m64n8k16_f32_bf16(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n8k16_f32_f16(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n8k32_f32_e4m3(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n16k16_f32_bf16(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n16k16_f32_f16(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n16k32_f32_e4m3(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n32k16_f32_bf16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n32k16_f32_f16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n32k32_f32_e4m3(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n64k16_f32_bf16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n64k16_f32_f16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n64k32_f32_e4m3(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n96k16_f32_bf16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n96k16_f32_f16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n96k32_f32_e4m3(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n128k16_f32_bf16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n128k16_f32_f16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n128k32_f32_e4m3(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n192k16_f32_bf16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n192k16_f32_f16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n192k32_f32_e4m3(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n256k16_f32_bf16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_stand_in!(fn wgmma_m64n256k16_f32_f16(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_stand_in!(fn wgmma_m64n256k32_f32_e4m3(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));

/// `wgmma.mma_async.sync.aligned.m64n<N>k16.f32.<in>.<in>` with A from this thread's
/// four registers of packed 16-bit pairs (the "RS" form; `proc::wgmma::a_position` says
/// which element each half is, the accumulator's pattern) and B from a descriptor.
macro_rules! wgmma_rs_stand_in {
    (fn $name:ident($($c:ident)*)) => {
        warpgroup_mma_stand_in!("warpgroup MMA with A from registers",
            fn $name(a0: u32, a1: u32, a2: u32, a3: u32, desc_b: u64, scale_d: u32) -> f32, ($($c)*));
    };
}

// The forms of `proc::wgmma::FORMS`: `_trans_a`, `_trans_b`, `_trans_ab` read A, B or
// both MN-major (transposed) from shared memory; `_rs` and `_rs_trans_b` take A from
// registers. 16-bit inputs only: fp8 has the K-major form alone.
wgmma_stand_in!(fn wgmma_m64n8k16_f32_bf16_trans_a(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n8k16_f32_bf16_trans_b(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n8k16_f32_bf16_trans_ab(c0 c1 c2 c3));
wgmma_rs_stand_in!(fn wgmma_m64n8k16_f32_bf16_rs(c0 c1 c2 c3));
wgmma_rs_stand_in!(fn wgmma_m64n8k16_f32_bf16_rs_trans_b(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n8k16_f32_f16_trans_a(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n8k16_f32_f16_trans_b(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n8k16_f32_f16_trans_ab(c0 c1 c2 c3));
wgmma_rs_stand_in!(fn wgmma_m64n8k16_f32_f16_rs(c0 c1 c2 c3));
wgmma_rs_stand_in!(fn wgmma_m64n8k16_f32_f16_rs_trans_b(c0 c1 c2 c3));
wgmma_stand_in!(fn wgmma_m64n16k16_f32_bf16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n16k16_f32_bf16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n16k16_f32_bf16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_rs_stand_in!(fn wgmma_m64n16k16_f32_bf16_rs(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_rs_stand_in!(fn wgmma_m64n16k16_f32_bf16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n16k16_f32_f16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n16k16_f32_f16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n16k16_f32_f16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_rs_stand_in!(fn wgmma_m64n16k16_f32_f16_rs(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_rs_stand_in!(fn wgmma_m64n16k16_f32_f16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7));
wgmma_stand_in!(fn wgmma_m64n32k16_f32_bf16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n32k16_f32_bf16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n32k16_f32_bf16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_rs_stand_in!(fn wgmma_m64n32k16_f32_bf16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_rs_stand_in!(fn wgmma_m64n32k16_f32_bf16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n32k16_f32_f16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n32k16_f32_f16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n32k16_f32_f16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_rs_stand_in!(fn wgmma_m64n32k16_f32_f16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_rs_stand_in!(fn wgmma_m64n32k16_f32_f16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15));
wgmma_stand_in!(fn wgmma_m64n64k16_f32_bf16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n64k16_f32_bf16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n64k16_f32_bf16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_rs_stand_in!(fn wgmma_m64n64k16_f32_bf16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_rs_stand_in!(fn wgmma_m64n64k16_f32_bf16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n64k16_f32_f16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n64k16_f32_f16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n64k16_f32_f16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_rs_stand_in!(fn wgmma_m64n64k16_f32_f16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_rs_stand_in!(fn wgmma_m64n64k16_f32_f16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31));
wgmma_stand_in!(fn wgmma_m64n96k16_f32_bf16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n96k16_f32_bf16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n96k16_f32_bf16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_rs_stand_in!(fn wgmma_m64n96k16_f32_bf16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_rs_stand_in!(fn wgmma_m64n96k16_f32_bf16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n96k16_f32_f16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n96k16_f32_f16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n96k16_f32_f16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_rs_stand_in!(fn wgmma_m64n96k16_f32_f16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_rs_stand_in!(fn wgmma_m64n96k16_f32_f16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47));
wgmma_stand_in!(fn wgmma_m64n128k16_f32_bf16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n128k16_f32_bf16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n128k16_f32_bf16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_rs_stand_in!(fn wgmma_m64n128k16_f32_bf16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_rs_stand_in!(fn wgmma_m64n128k16_f32_bf16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n128k16_f32_f16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n128k16_f32_f16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n128k16_f32_f16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_rs_stand_in!(fn wgmma_m64n128k16_f32_f16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_rs_stand_in!(fn wgmma_m64n128k16_f32_f16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63));
wgmma_stand_in!(fn wgmma_m64n192k16_f32_bf16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n192k16_f32_bf16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n192k16_f32_bf16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_rs_stand_in!(fn wgmma_m64n192k16_f32_bf16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_rs_stand_in!(fn wgmma_m64n192k16_f32_bf16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n192k16_f32_f16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n192k16_f32_f16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n192k16_f32_f16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_rs_stand_in!(fn wgmma_m64n192k16_f32_f16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_rs_stand_in!(fn wgmma_m64n192k16_f32_f16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95));
wgmma_stand_in!(fn wgmma_m64n256k16_f32_bf16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_stand_in!(fn wgmma_m64n256k16_f32_bf16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_stand_in!(fn wgmma_m64n256k16_f32_bf16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_rs_stand_in!(fn wgmma_m64n256k16_f32_bf16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_rs_stand_in!(fn wgmma_m64n256k16_f32_bf16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_stand_in!(fn wgmma_m64n256k16_f32_f16_trans_a(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_stand_in!(fn wgmma_m64n256k16_f32_f16_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_stand_in!(fn wgmma_m64n256k16_f32_f16_trans_ab(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_rs_stand_in!(fn wgmma_m64n256k16_f32_f16_rs(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
wgmma_rs_stand_in!(fn wgmma_m64n256k16_f32_f16_rs_trans_b(c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25 c26 c27 c28 c29 c30 c31 c32 c33 c34 c35 c36 c37 c38 c39 c40 c41 c42 c43 c44 c45 c46 c47 c48 c49 c50 c51 c52 c53 c54 c55 c56 c57 c58 c59 c60 c61 c62 c63 c64 c65 c66 c67 c68 c69 c70 c71 c72 c73 c74 c75 c76 c77 c78 c79 c80 c81 c82 c83 c84 c85 c86 c87 c88 c89 c90 c91 c92 c93 c94 c95 c96 c97 c98 c99 c100 c101 c102 c103 c104 c105 c106 c107 c108 c109 c110 c111 c112 c113 c114 c115 c116 c117 c118 c119 c120 c121 c122 c123 c124 c125 c126 c127));
