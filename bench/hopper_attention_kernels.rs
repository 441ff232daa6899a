//! The FlashAttention-3-structured attention forward in cudajit (issue 24): bf16 Q, K, V,
//! O of shape `[batch·heads][seq][D]` row-major, non-causal, the algorithm of
//! bench/cuda/hopper_attention.cu's `attention_fa3<D, false, false>` (its `nvcc` row)
//! tile for tile. bench/hopper_attention.rs times it against that twin and PyTorch;
//! tests/sim_hopper_attention.rs runs it small on the simulator against f64.
//!
//! A block of 384 threads owns 128 query rows of one head (`block_idx().x`: the row
//! tile, `.y`: the head):
//! - warpgroup 0 produces (`setmaxnreg_dec::<24>`): one thread loads Q once and streams
//!   K and V tiles of 128 keys through a 2-stage ring, every tile as `D / 64` TMA boxes of
//!   128 rows × 64 columns (128B swizzle) side by side;
//! - warpgroups 1 and 2 consume (`setmaxnreg_inc::<240>`), 64 query rows each: per key
//!   tile, `S = Q·Kᵀ` (`D / 16` wgmma m64n128k16, both operands K-major from shared
//!   memory), the online softmax on S's registers in base 2 with the scale folded (a row's
//!   max and sum over the 4 threads of a quad by shuffles), P packed to bf16 in place
//!   (S's register pair `(2 j, 2 j + 1)` is P's A register `j`: `proc::wgmma::a_position`),
//!   then `O += P·V` (8 wgmma m64nDk16 with A from registers and V MN-major, `_rs_trans_b`);
//!   the stage is released after P·V.
//!
//! Barriers (`bars`): 0 `q_full`; 1 + s `k_full[s]`, 3 + s `v_full[s]` (count 1: the
//! producer's expect-tx arrival, then the boxes' bytes); 5 + s `kv_empty[s]` (count 256:
//! every consumer thread after its P·V). Shared memory (dynamic): Q, the 2 K stages, the
//! 2 V stages, each tile a multiple of 16 KiB (the swizzle's 1024-byte alignment holds),
//! then the 7 barriers.

/// Threads per block: one producer and two consumer warpgroups.
pub const THREADS: u32 = 384;
/// Query rows per block, and keys per K/V tile.
pub const BLOCK_ROWS: usize = 128;

/// The bytes of dynamic shared memory a block needs at head dim `d`: Q, two K and two V
/// stages of 128 × d bf16, then the 7 barriers.
pub const fn shared_bytes(d: usize) -> usize {
    5 * BLOCK_ROWS * d * 2 + 7 * 8
}

/// `$pv`: the `O += P·V` wgmma of head dim `$d`; `s_acc`/`o_acc`: the accumulator lists
/// of `with_attention_accumulators!`.
macro_rules! hopper_attention {
    ($check:tt, $name:ident, d = $d:literal, pv = $pv:ident,
     s_acc = [$(($sd:ident, $si:literal)),*], o_acc = [$(($od:ident, $oi:literal)),*]) => {
        // fastmath: exp2 as ex2.approx.ftz (the twin's exp2_approx); the softmax's
        // multiply-adds are mul_add (cudajit does not contract).
        #[kernel(boundscheck = $check, launch_bounds = 384, fastmath = true)]
        pub fn $name(
            q: &TensorMap<bf16, 2>,
            kmat: &TensorMap<bf16, 2>,
            v: &TensorMap<bf16, 2>,
            o: &mut [bf16],
            seq: usize,
            scale_log2: f32,
        ) {
            let mut smem = dynamic_shared();
            let tq = smem.take::<bf16>(128 * $d);
            let tk = smem.take::<bf16>(2 * 128 * $d);
            let tv = smem.take::<bf16>(2 * 128 * $d);
            let bars = smem.take::<u64>(7);
            let t = thread_idx().x as usize;
            let wg = t / 128;
            let tw = t % 128;
            let head_row = block_idx().y as usize * seq;
            let q_row = head_row + block_idx().x as usize * 128;
            let kv_tiles = seq / 128;
            if t == 0 {
                mbarrier_init(bars, 0, 1);
                for s in 0..2 {
                    mbarrier_init(bars, 1 + s, 1);
                    mbarrier_init(bars, 3 + s, 1);
                    mbarrier_init(bars, 5 + s, 256);
                }
                fence_mbarrier_init();
            }
            sync_threads();
            if wg == 0 {
                setmaxnreg_dec::<24>();
                if tw == 0 {
                    tma_prefetch(q);
                    tma_prefetch(kmat);
                    tma_prefetch(v);
                    // A tile: D / 64 boxes of 128 rows × 64 columns, 8192 elements each.
                    mbarrier_arrive_expect_tx(bars, 0, (128 * $d * 2) as u32);
                    for b in 0..$d / 64 {
                        let box_q = &mut tq[b * 8192..b * 8192 + 8192];
                        tma_load(q, box_q, [q_row as i32, (b * 64) as i32], bars, 0);
                    }
                    for j in 0..kv_tiles {
                        let s = j % 2;
                        if j >= 2 {
                            // The consumers' (j / 2 - 1)-th release of this stage.
                            while !mbarrier_try_wait_parity(bars, 5 + s, ((j / 2 - 1) % 2) as u32) {}
                        }
                        let row = (head_row + j * 128) as i32;
                        let stage = s * 128 * $d;
                        mbarrier_arrive_expect_tx(bars, 1 + s, (128 * $d * 2) as u32);
                        for b in 0..$d / 64 {
                            let at = stage + b * 8192;
                            tma_load(kmat, &mut tk[at..at + 8192], [row, (b * 64) as i32], bars, 1 + s);
                        }
                        mbarrier_arrive_expect_tx(bars, 3 + s, (128 * $d * 2) as u32);
                        for b in 0..$d / 64 {
                            let at = stage + b * 8192;
                            tma_load(v, &mut tv[at..at + 8192], [row, (b * 64) as i32], bars, 3 + s);
                        }
                    }
                }
            } else {
                setmaxnreg_inc::<240>();
                let cw = wg - 1;
                // The descriptors of stage 0 (checked once: shared memory, in bounds); a
                // stage and a k-step add their byte offsets >> 4, so no check branches
                // between the wgmmas. Q and K are K-major (this warpgroup's 64 rows of Q
                // start at row 64 cw of each box); V is MN-major: leading = the next 64
                // columns of D (the next box, 16 KiB on), stride = 8 keys (1024 bytes).
                // Q's are made per k-step here, once: each is a value of its own that
                // stays in a register across the key loop, as the twin's eight do (its
                // columns 16 ks.. are in box ks / 4, at element (ks % 4) · 16 of a row).
                let mut dq = [0u64; $d / 16];
                #[unroll]
                for ks in 0..$d / 16 {
                    let at = cw * 64 * 64 + (ks / 4) * 8192 + (ks % 4) * 16;
                    dq[ks] = wgmma_descriptor(tq, at, 128, 0, 1024);
                }
                let dk = wgmma_descriptor(tk, 0, 128, 0, 1024);
                let dv = wgmma_descriptor(tv, 0, 128, 16384, 1024);
                let mut s = [0.0f32; 64];
                let mut out = [0.0f32; $d / 2];
                let mut p = [0u32; 32];
                let mut row_max = [f32::NEG_INFINITY; 2];
                let mut row_sum = [0.0f32; 2];
                let mut correction = [0.0f32; 2];
                while !mbarrier_try_wait_parity(bars, 0, 0) {}
                for j in 0..kv_tiles {
                    let st = j % 2;
                    let phase = ((j / 2) % 2) as u32;
                    let stage = (st * 128 * $d * 2 / 16) as u64;
                    while !mbarrier_try_wait_parity(bars, 1 + st, phase) {}
                    // S = Q·Kᵀ: the 16 columns of k-step ks are in box ks / 4, at byte
                    // (ks % 4) · 32 of each 128-byte row; the first step overwrites S.
                    wgmma_fence();
                    #[unroll]
                    for ks in 0..$d / 16 {
                        let step = ((ks / 4) * 1024 + (ks % 4) * 2) as u64;
                        let scale_d = if ks == 0 { 0u32 } else { 1u32 };
                        let ($($sd),*) = wgmma_m64n128k16_f32_bf16(
                            dq[ks], dk + stage + step, scale_d, $(s[$si]),*
                        );
                        $(s[$si] = $sd;)*
                    }
                    wgmma_commit_group();
                    wgmma_wait_group_0();

                    // Online softmax: register i is row 8 ((i / 2) % 2) of the thread's
                    // two, so half h holds i = 4 c + 2 h + {0, 1}; a row's 128 columns are
                    // spread over the 4 threads of a quad.
                    #[unroll]
                    for h in 0..2 {
                        let mut tile_max = f32::NEG_INFINITY;
                        #[unroll]
                        for c in 0..16 {
                            tile_max = tile_max.max(s[4 * c + 2 * h].max(s[4 * c + 2 * h + 1]));
                        }
                        tile_max = tile_max.max(shfl_xor_sync(0xffff_ffff, tile_max, 1));
                        tile_max = tile_max.max(shfl_xor_sync(0xffff_ffff, tile_max, 2));
                        let new_max = row_max[h].max(tile_max * scale_log2);
                        correction[h] = (row_max[h] - new_max).exp2();
                        row_max[h] = new_max;
                        let mut sum = 0.0f32;
                        #[unroll]
                        for c in 0..16 {
                            let a = s[4 * c + 2 * h].mul_add(scale_log2, -new_max).exp2();
                            let b = s[4 * c + 2 * h + 1].mul_add(scale_log2, -new_max).exp2();
                            s[4 * c + 2 * h] = a;
                            s[4 * c + 2 * h + 1] = b;
                            sum += a + b;
                        }
                        row_sum[h] = row_sum[h].mul_add(correction[h], sum);
                    }
                    #[unroll]
                    for i in 0..$d / 2 {
                        out[i] *= correction[(i / 2) % 2];
                    }
                    // P's A registers: S's pairs, bf16, the lower column in the low half.
                    #[unroll]
                    for r in 0..32 {
                        p[r] = pack_bf16x2(s[2 * r], s[2 * r + 1]);
                    }

                    // O += P·V: k-step kk takes P's registers 4 kk.. and V's keys 16 kk..
                    // (16 rows of 128 bytes: 2048 bytes on).
                    while !mbarrier_try_wait_parity(bars, 3 + st, phase) {}
                    wgmma_fence();
                    #[unroll]
                    for kk in 0..8 {
                        let ($($od),*) = $pv(
                            p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3],
                            dv + stage + (kk * 128) as u64, 1, $(out[$oi]),*
                        );
                        $(out[$oi] = $od;)*
                    }
                    wgmma_commit_group();
                    wgmma_wait_group_0();
                    mbarrier_arrive(bars, 5 + st);
                }

                // O / row sum (the quad's partial sums added), bf16 pairs from the
                // registers: the thread's rows r and r + 8, columns 8 c + 2 (lane % 4).
                let lane = tw % 32;
                let mut inv = [0.0f32; 2];
                #[unroll]
                for h in 0..2 {
                    let mut sum = row_sum[h];
                    sum += shfl_xor_sync(0xffff_ffff, sum, 1);
                    sum += shfl_xor_sync(0xffff_ffff, sum, 2);
                    inv[h] = 1.0 / sum;
                }
                let row = q_row + cw * 64 + 16 * (tw / 32) + lane / 4;
                let first = row * $d + 2 * (lane % 4);
                #[unroll]
                for c in 0..$d / 8 {
                    #[unroll]
                    for h in 0..2 {
                        let lo = bf16::from_f32(out[4 * c + 2 * h] * inv[h]);
                        let hi = bf16::from_f32(out[4 * c + 2 * h + 1] * inv[h]);
                        o.store_vec::<2>(first + 8 * h * $d + 8 * c, [lo, hi]);
                    }
                }
            }
        }
    };
}

include!("attention_accumulators.rs");

/// The kernels of the benchmark, bounds-checked (`$check` = true) or not.
macro_rules! hopper_attention_kernels {
    ($check:tt) => {
        with_attention_accumulators!(
            hopper_attention!(
                $check,
                attention_fa3_d128,
                d = 128,
                pv = wgmma_m64n128k16_f32_bf16_rs_trans_b,
            ),
            d = 128
        );
        with_attention_accumulators!(
            hopper_attention!(
                $check,
                attention_fa3_d64,
                d = 64,
                pv = wgmma_m64n64k16_f32_bf16_rs_trans_b,
            ),
            d = 64
        );
    };
}

pub mod checked {
    use cudajit::prelude::*;
    use cudajit::TensorMap;
    hopper_attention_kernels!(true);
}

pub mod nocheck {
    use cudajit::prelude::*;
    use cudajit::TensorMap;
    hopper_attention_kernels!(false);
}
