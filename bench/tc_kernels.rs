//! The tensor-core benchmark's cudajit kernels (issue 23): the GEMMs and the
//! FlashAttention-2 forward of bench/cuda/tc_gemm.cuh and tc_attention.cuh, tile for
//! tile, written with the register-level `ldmatrix_x4[_trans]` and
//! `mma_<shape>_<in>_<acc>` intrinsics (branch `tc`; the typed `FragA`/`FragB`/`Acc` of
//! docs/tensor_cores.md are not in the frontend yet) and `cp_async_cg` + commit/wait groups (branch `async`,
//! docs/async_copies.md). bench/tc.rs times them; tests/sim_tc.rs runs them small on
//! the simulator. Keep each kernel and its nvcc twin alike: same block tile, stages,
//! warp tile, swizzle, loop order and epilogue.
//!
//! Layout as in tc_gemm.cuh: A is M×K and B is N×K, both row-major (K contiguous), and
//! C = A·Bᵀ is M×N row-major; sizes are multiples of the block tile (the host asserts).
//! Shared tiles are rows of 16-byte chunks whose chunk index is XORed with the row
//! (`swizzle` in tc_gemm.cuh), so that the 8 rows of one ldmatrix phase hit 8 different
//! bank groups; each lane passes the element offset of the row it supplies.

/// The 16x8 GEMMs (bf16 m16n8k16, tf32 m16n8k8, int8 m16n8k32): a 128×128 block tile of
/// 4 warps (2×2, 64×64 each: 4 m16 × 8 n8 accumulators), `$stages` cp.async stages of
/// `$row` elements of K (`$chunks` 16-byte chunks of `$w` elements), one mma k-step per
/// 32 bytes of K; the swizzle is `chunk ^ ((row >> $shift) & $mask)`.
macro_rules! tc_gemm {
    ($check:tt, $name:ident, $s:ident, $mma:ident, $zero:literal, $out:ident, row = $row:literal,
     w = $w:literal, chunks = $chunks:literal, stages = $stages:literal, wait = $wait:literal,
     shift = $shift:literal,
     mask = $mask:literal, epilogue = |$c:ident, $lo:ident, $hi:ident, $f:ident| { $($store:tt)* }) => {
        #[kernel(boundscheck = $check, block_dim = 128)]
        pub fn $name(a: &[$s], b: &[$s], $c: &mut [$out], m: u32, n: u32, k: u32) {
            let mut smem = dynamic_shared();
            // Each stage: the A tile (128 rows) then the B tile (128 rows) of `$row`.
            let tiles = smem.take::<$s>($stages * 256 * $row);
            let tid = thread_idx().x as usize;
            let lane = tid % 32;
            let warp = tid / 32;
            // Sizes are `u32` as the twin's `int`: the k loop counts in 32 bits, and a row
            // stride widened from 32 bits lets ptxas step the copies' rows with one
            // 32x32->64 multiply-add each, as the twin's `long long` row bytes of its
            // `int K` do (with usize sizes: two 64-bit adds per copy, a 64-bit counter).
            let ld = k as usize;
            let cols = n as usize;
            // Grouped raster: 8 block rows share each B panel while it is in L2.
            let tiles_m = m as usize / 128;
            let per_group = 8 * (cols / 128);
            let pid = block_idx().x as usize;
            let first_m = (pid / per_group) * 8;
            let rows_here = if tiles_m - first_m < 8 {
                tiles_m - first_m
            } else {
                8
            };
            let tile_m = first_m + (pid % per_group) % rows_here;
            let tile_n = (pid % per_group) / rows_here;
            let wrow = (warp / 2) * 64;
            let wcol = (warp % 2) * 64;

            // This thread's chunk of each copied row; rows 128 / $chunks apart share it.
            let load_row = tid / $chunks;
            let load_chunk = tid % $chunks;
            let load_dst = load_row * $row + (load_chunk ^ ((load_row >> $shift) & $mask)) * $w;
            let a_src = (tile_m * 128 + load_row) * ld + load_chunk * $w;
            let b_src = (tile_n * 128 + load_row) * ld + load_chunk * $w;
            let rows_per_pass = 128 / $chunks;
            let k_tiles = k / $row;

            // As the twin's `load_stage`: every pass of the A tile, then of the B tile.
            for s in 0..$stages - 1 {
                if (s as u32) < k_tiles {
                    let dst = s * 256 * $row + load_dst;
                    #[unroll]
                    for p in 0..128 / rows_per_pass {
                        let src = a_src + p * rows_per_pass * ld + s * $row;
                        cp_async_cg::<16>(tiles, dst + p * rows_per_pass * $row, a, src);
                    }
                    #[unroll]
                    for p in 0..128 / rows_per_pass {
                        let src = b_src + p * rows_per_pass * ld + s * $row;
                        cp_async_cg::<16>(tiles, dst + (128 + p * rows_per_pass) * $row, b, src);
                    }
                }
                cp_async_commit();
            }

            let mut acc = [[[$zero; 4]; 8]; 4];
            // The lanes' ldmatrix rows: tiles of one warp are 16 rows apart, so the
            // swizzle (a function of the row mod 8) is one per lane.
            let a_row = wrow + (lane & 15);
            let a_swz = (a_row >> $shift) & $mask;
            let b_row = wcol + ((lane >> 4) << 3) + (lane & 7);
            let b_swz = (b_row >> $shift) & $mask;
            for kt in 0..k_tiles {
                cp_async_wait::<$wait>(); // the newest (stages - 2) groups may stay in flight
                sync_threads(); // stage kt landed for every thread; stage kt-1 is free
                let next = kt + $stages - 1;
                if next < k_tiles {
                    let dst = (next % $stages) as usize * 256 * $row + load_dst;
                    // Widened from the loop's variable itself: the index stays affine in
                    // `kt`, so the loop's guard proves every copy of the loop at once.
                    let k_offset = (kt as usize + $stages - 1) * $row;
                    #[unroll]
                    for p in 0..128 / rows_per_pass {
                        let src = a_src + p * rows_per_pass * ld + k_offset;
                        cp_async_cg::<16>(tiles, dst + p * rows_per_pass * $row, a, src);
                    }
                    #[unroll]
                    for p in 0..128 / rows_per_pass {
                        let src = b_src + p * rows_per_pass * ld + k_offset;
                        cp_async_cg::<16>(tiles, dst + (128 + p * rows_per_pass) * $row, b, src);
                    }
                }
                cp_async_commit(); // an empty group keeps the wait count uniform at the tail
                let stage = (kt % $stages) as usize * 256 * $row;
                #[unroll]
                for ks in 0..$chunks / 2 {
                    let a_off = stage + a_row * $row + ((ks * 2 + (lane >> 4)) ^ a_swz) * $w;
                    let b_off =
                        stage + (128 + b_row) * $row + ((ks * 2 + ((lane >> 3) & 1)) ^ b_swz) * $w;
                    let mut fa = [[0u32; 4]; 4];
                    #[unroll]
                    for mt in 0..4 {
                        let (r0, r1, r2, r3) = ldmatrix_x4(tiles, a_off + mt * 16 * $row);
                        fa[mt] = [r0, r1, r2, r3];
                    }
                    // n-tile 2np in registers 0-1, 2np + 1 in 2-3.
                    let mut fb = [[0u32; 2]; 8];
                    #[unroll]
                    for np in 0..4 {
                        let (r0, r1, r2, r3) = ldmatrix_x4(tiles, b_off + np * 16 * $row);
                        fb[2 * np] = [r0, r1];
                        fb[2 * np + 1] = [r2, r3];
                    }
                    #[unroll]
                    for mt in 0..4 {
                        #[unroll]
                        for nt in 0..8 {
                            let c = acc[mt][nt];
                            let (d0, d1, d2, d3) = $mma(
                                fa[mt][0], fa[mt][1], fa[mt][2], fa[mt][3], fb[nt][0], fb[nt][1],
                                c[0], c[1], c[2], c[3],
                            );
                            acc[mt][nt] = [d0, d1, d2, d3];
                        }
                    }
                }
            }

            // Accumulator element i of lane 4g + t is at (g + 8 (i / 2), 2t + i % 2).
            let g = lane / 4;
            let t = lane % 4;
            #[unroll]
            for mt in 0..4 {
                #[unroll]
                for nt in 0..8 {
                    let row = tile_m * 128 + wrow + mt * 16 + g;
                    let col = tile_n * 128 + wcol + nt * 8 + 2 * t;
                    // The caller's stores of this accumulator's rows g and g + 8.
                    let $lo = row * cols + col;
                    let $hi = (row + 8) * cols + col;
                    let $f = acc[mt][nt];
                    $($store)*
                }
            }
        }
    };
}

/// DGEMM with m8n8k4 DMMA: a 128×128 block tile of 8 warps (2×4, 64×32 each: 8 m8 × 4
/// n8 accumulators), 3 stages of 16 f64 of K (8 chunks of 2); no ldmatrix for 64-bit
/// elements, so each lane reads its own: a = A(row g, k t), b = B(n g, k t).
macro_rules! tc_dgemm {
    ($check:tt) => {
        #[kernel(boundscheck = $check, block_dim = 256)]
        pub fn dgemm_f64(a: &[f64], b: &[f64], c: &mut [f64], m: u32, n: u32, k: u32) {
            let mut smem = dynamic_shared();
            let tiles = smem.take::<f64>(3 * 256 * 16);
            let tid = thread_idx().x as usize;
            let lane = tid % 32;
            let warp = tid / 32;
            // `u32` sizes as the twin's `int`, for the reasons `tc_gemm!` gives: a 32-bit
            // k loop and copies stepped by 32x32->64 multiply-adds.
            let ld = k as usize;
            let cols = n as usize;
            let tiles_m = m as usize / 128;
            let per_group = 8 * (cols / 128);
            let pid = block_idx().x as usize;
            let first_m = (pid / per_group) * 8;
            let rows_here = if tiles_m - first_m < 8 {
                tiles_m - first_m
            } else {
                8
            };
            let tile_m = first_m + (pid % per_group) % rows_here;
            let tile_n = (pid % per_group) / rows_here;
            let wrow = (warp / 4) * 64;
            let wcol = (warp % 4) * 32;

            let load_row = tid / 8;
            let load_chunk = tid % 8;
            let load_dst = load_row * 16 + (load_chunk ^ (load_row & 7)) * 2;
            let a_src = (tile_m * 128 + load_row) * ld + load_chunk * 2;
            let b_src = (tile_n * 128 + load_row) * ld + load_chunk * 2;
            let k_tiles = k / 16;
            // As the twin's `load_stage`: every pass of the A tile, then of the B tile.
            for s in 0..2 {
                if (s as u32) < k_tiles {
                    let dst = s * 4096 + load_dst;
                    #[unroll]
                    for p in 0..4 {
                        let src = a_src + p * 32 * ld + s * 16;
                        cp_async_cg::<16>(tiles, dst + p * 512, a, src);
                    }
                    #[unroll]
                    for p in 0..4 {
                        let src = b_src + p * 32 * ld + s * 16;
                        cp_async_cg::<16>(tiles, dst + 2048 + p * 512, b, src);
                    }
                }
                cp_async_commit();
            }

            let mut acc = [[[0.0f64; 2]; 4]; 8];
            let g = lane / 4;
            let t = lane % 4;
            for kt in 0..k_tiles {
                cp_async_wait::<1>();
                sync_threads();
                let next = kt + 2;
                if next < k_tiles {
                    let dst = (next % 3) as usize * 4096 + load_dst;
                    // Widened from the loop's variable itself, as in `tc_gemm!`.
                    let k_offset = (kt as usize + 2) * 16;
                    #[unroll]
                    for p in 0..4 {
                        let src = a_src + p * 32 * ld + k_offset;
                        cp_async_cg::<16>(tiles, dst + p * 512, a, src);
                    }
                    #[unroll]
                    for p in 0..4 {
                        let src = b_src + p * 32 * ld + k_offset;
                        cp_async_cg::<16>(tiles, dst + 2048 + p * 512, b, src);
                    }
                }
                cp_async_commit();
                let stage = (kt % 3) as usize * 4096;
                #[unroll]
                for ks in 0..4 {
                    let chunk = ks * 2 + t / 2;
                    let within = t % 2;
                    let mut fa = [0.0f64; 8];
                    #[unroll]
                    for mt in 0..8 {
                        let row = wrow + mt * 8 + g;
                        fa[mt] = tiles[stage + row * 16 + (chunk ^ (row & 7)) * 2 + within];
                    }
                    let mut fb = [0.0f64; 4];
                    #[unroll]
                    for nt in 0..4 {
                        let row = wcol + nt * 8 + g;
                        fb[nt] = tiles[stage + 2048 + row * 16 + (chunk ^ (row & 7)) * 2 + within];
                    }
                    #[unroll]
                    for mt in 0..8 {
                        #[unroll]
                        for nt in 0..4 {
                            let c = acc[mt][nt];
                            let (d0, d1) = mma_m8n8k4_f64_f64(fa[mt], fb[nt], c[0], c[1]);
                            acc[mt][nt] = [d0, d1];
                        }
                    }
                }
            }
            #[unroll]
            for mt in 0..8 {
                #[unroll]
                for nt in 0..4 {
                    let row = tile_m * 128 + wrow + mt * 8 + g;
                    let col = tile_n * 128 + wcol + nt * 8 + 2 * t;
                    let f = acc[mt][nt];
                    c.store_vec::<2>(row * cols + col, [f[0], f[1]]);
                }
            }
        }
    };
}

/// FlashAttention-2 forward, bf16 [heads][seq][$d] row-major, non-causal: a block of 4
/// warps owns 128 query rows (each warp 32: two m16 tiles); K/V tiles of `$bkv` rows in
/// a 2-stage cp.async pipeline; S = Q·Kᵀ (K is the N×K operand: ldmatrix), online
/// softmax in base 2 on the accumulators, P re-used from S's accumulators as the A
/// operand of O += P·V (V is K×N: ldmatrix.trans). Rows have $d / 8 chunks; the swizzle
/// is `chunk ^ (row & 7)`.
macro_rules! tc_attention {
    ($check:tt, $name:ident, d = $d:literal, bkv = $bkv:literal) => {
        // fastmath: exp2 as ex2.approx.ftz (tc_attention.cuh's exp2_of<true>, FA2's
        // --use_fast_math); the softmax's multiply-adds are mul_add either way.
        #[kernel(boundscheck = $check, block_dim = 128, fastmath = true)]
        pub fn $name(
            q: &[bf16],
            kmat: &[bf16],
            v: &[bf16],
            o: &mut [bf16],
            seq: u32,
            scale_log2: f32,
        ) {
            let mut smem = dynamic_shared();
            let qs = smem.take::<bf16>(128 * $d);
            let ks = smem.take::<bf16>(2 * $bkv * $d);
            let vs = smem.take::<bf16>(2 * $bkv * $d);
            let tid = thread_idx().x as usize;
            let lane = tid % 32;
            let warp = tid / 32;
            // `seq` is `u32` as the twin's `int`: the kv loop counts in 32 bits.
            let head = block_idx().y as usize * seq as usize * $d;
            let q0 = head + block_idx().x as usize * 128 * $d;

            // Rows 128 / ($d / 8) apart share this thread's chunk and its swizzle.
            let load_row = tid / ($d / 8);
            let load_chunk = tid % ($d / 8);
            let load_dst = load_row * $d + (load_chunk ^ (load_row & 7)) * 8;
            let load_src = load_row * $d + load_chunk * 8;
            let pass = (128 / ($d / 8)) * $d;
            #[unroll]
            for p in 0..128 / (128 / ($d / 8)) {
                cp_async_cg::<16>(qs, load_dst + p * pass, q, q0 + load_src + p * pass);
            }
            #[unroll]
            for p in 0..$bkv / (128 / ($d / 8)) {
                cp_async_cg::<16>(ks, load_dst + p * pass, kmat, head + load_src + p * pass);
                cp_async_cg::<16>(vs, load_dst + p * pass, v, head + load_src + p * pass);
            }
            cp_async_commit();
            cp_async_wait::<0>();
            sync_threads();

            let q_row = warp * 32 + (lane & 15);
            let q_swz = q_row & 7;
            let q_hi = lane >> 4;
            let k_row = ((lane >> 4) << 3) + (lane & 7);
            let k_swz = k_row & 7;
            let k_hi = (lane >> 3) & 1;
            let v_row = (((lane >> 3) & 1) << 3) + (lane & 7);
            let v_swz = v_row & 7;
            let v_hi = lane >> 4;

            let mut out = [[[0.0f32; 4]; $d / 8]; 2];
            let mut row_max = [[f32::NEG_INFINITY; 2]; 2];
            let mut row_sum = [[0.0f32; 2]; 2];
            let kv_tiles = seq / $bkv;
            for j in 0..kv_tiles {
                if j + 1 < kv_tiles {
                    let stage = ((j + 1) % 2) as usize * $bkv * $d;
                    let src = head + (j as usize + 1) * $bkv * $d + load_src;
                    #[unroll]
                    for p in 0..$bkv / (128 / ($d / 8)) {
                        cp_async_cg::<16>(ks, stage + load_dst + p * pass, kmat, src + p * pass);
                        cp_async_cg::<16>(vs, stage + load_dst + p * pass, v, src + p * pass);
                    }
                    cp_async_commit();
                    cp_async_wait::<1>();
                } else {
                    cp_async_wait::<0>();
                }
                sync_threads();
                let kv = (j % 2) as usize * $bkv * $d;

                // Tile addresses as the twin spells them: the writer adds each tile's offset
                // (`np * 16 * $d`) last whatever the spelling (`mma::tile_address_terms`).
                let mut s = [[[0.0f32; 4]; $bkv / 8]; 2];
                #[unroll]
                for kd in 0..$d / 16 {
                    let mut qa = [[0u32; 4]; 2];
                    #[unroll]
                    for mi in 0..2 {
                        let (r0, r1, r2, r3) =
                            ldmatrix_x4(qs, (q_row + mi * 16) * $d + ((kd * 2 + q_hi) ^ q_swz) * 8);
                        qa[mi] = [r0, r1, r2, r3];
                    }
                    #[unroll]
                    for np in 0..$bkv / 16 {
                        // n-tile 2np in registers 0-1, 2np + 1 in 2-3.
                        let (b0, b1, b2, b3) = ldmatrix_x4(
                            ks,
                            kv + (np * 16 + k_row) * $d + ((kd * 2 + k_hi) ^ k_swz) * 8,
                        );
                        #[unroll]
                        for mi in 0..2 {
                            let a = qa[mi];
                            let c = s[mi][2 * np];
                            let (d0, d1, d2, d3) = mma_m16n8k16_bf16_f32(
                                a[0], a[1], a[2], a[3], b0, b1, c[0], c[1], c[2], c[3],
                            );
                            s[mi][2 * np] = [d0, d1, d2, d3];
                            let c = s[mi][2 * np + 1];
                            let (d0, d1, d2, d3) = mma_m16n8k16_bf16_f32(
                                a[0], a[1], a[2], a[3], b2, b3, c[0], c[1], c[2], c[3],
                            );
                            s[mi][2 * np + 1] = [d0, d1, d2, d3];
                        }
                    }
                }

                // Rows g (elements 0, 1) and g + 8 (2, 3), each over the 4 lanes of a quad.
                #[unroll]
                for mi in 0..2 {
                    #[unroll]
                    for h in 0..2 {
                        let mut tile_max = f32::NEG_INFINITY;
                        #[unroll]
                        for i in 0..$bkv / 8 {
                            tile_max = tile_max.max(s[mi][i][2 * h].max(s[mi][i][2 * h + 1]));
                        }
                        tile_max = tile_max.max(shfl_xor_sync(0xffff_ffff, tile_max, 1));
                        tile_max = tile_max.max(shfl_xor_sync(0xffff_ffff, tile_max, 2));
                        let new_max = row_max[mi][h].max(tile_max * scale_log2);
                        let correction = (row_max[mi][h] - new_max).exp2();
                        row_max[mi][h] = new_max;
                        let mut sum = 0.0f32;
                        #[unroll]
                        for i in 0..$bkv / 8 {
                            // mul_add where nvcc contracts (cudajit compiles with -fma=0).
                            s[mi][i][2 * h] = s[mi][i][2 * h].mul_add(scale_log2, -new_max).exp2();
                            s[mi][i][2 * h + 1] =
                                s[mi][i][2 * h + 1].mul_add(scale_log2, -new_max).exp2();
                            sum += s[mi][i][2 * h] + s[mi][i][2 * h + 1];
                        }
                        row_sum[mi][h] = row_sum[mi][h].mul_add(correction, sum);
                        #[unroll]
                        for i in 0..$d / 8 {
                            out[mi][i][2 * h] *= correction;
                            out[mi][i][2 * h + 1] *= correction;
                        }
                    }
                }

                // O += P·V: P's A fragment for kv columns [16kk, 16kk + 16) is S's
                // accumulators 2kk (elements 0-3) and 2kk + 1 (elements 4-7).
                #[unroll]
                for kk in 0..$bkv / 16 {
                    // Register r of the A fragment: elements (2r, 2r + 1) as bf16, low
                    // half first (tc_attention.cuh's pack_bf16).
                    let mut p = [[0u32; 4]; 2];
                    #[unroll]
                    for mi in 0..2 {
                        #[unroll]
                        for r in 0..4 {
                            let tile = s[mi][2 * kk + r / 2];
                            let lo = bf16::from_f32(tile[2 * (r % 2)]).to_bits() as u32;
                            let hi = bf16::from_f32(tile[2 * (r % 2) + 1]).to_bits() as u32;
                            p[mi][r] = (hi << 16) | lo;
                        }
                    }
                    #[unroll]
                    for dp in 0..$d / 16 {
                        let (b0, b1, b2, b3) = ldmatrix_x4_trans(
                            vs,
                            kv + (kk * 16 + v_row) * $d + ((dp * 2 + v_hi) ^ v_swz) * 8,
                        );
                        #[unroll]
                        for mi in 0..2 {
                            let a = p[mi];
                            let c = out[mi][2 * dp];
                            let (d0, d1, d2, d3) = mma_m16n8k16_bf16_f32(
                                a[0], a[1], a[2], a[3], b0, b1, c[0], c[1], c[2], c[3],
                            );
                            out[mi][2 * dp] = [d0, d1, d2, d3];
                            let c = out[mi][2 * dp + 1];
                            let (d0, d1, d2, d3) = mma_m16n8k16_bf16_f32(
                                a[0], a[1], a[2], a[3], b2, b3, c[0], c[1], c[2], c[3],
                            );
                            out[mi][2 * dp + 1] = [d0, d1, d2, d3];
                        }
                    }
                }
                sync_threads(); // every warp is done with this stage before it is refilled
            }

            let g = lane / 4;
            let t = lane % 4;
            #[unroll]
            for mi in 0..2 {
                let mut inv = [0.0f32; 2];
                #[unroll]
                for h in 0..2 {
                    let mut sum = row_sum[mi][h];
                    sum += shfl_xor_sync(0xffff_ffff, sum, 1);
                    sum += shfl_xor_sync(0xffff_ffff, sum, 2);
                    inv[h] = 1.0 / sum;
                }
                let row = q0 + (warp * 32 + mi * 16 + g) * $d;
                #[unroll]
                for i in 0..$d / 8 {
                    let col = i * 8 + 2 * t;
                    let f = out[mi][i];
                    // Each bf16 pair in one 4-byte store, as the twin's `__nv_bfloat162`
                    // (and the GEMMs' epilogue): half the stores, and half the checks.
                    let (lo, hi) = (f[0] * inv[0], f[1] * inv[0]);
                    o.store_vec::<2>(row + col, [bf16::from_f32(lo), bf16::from_f32(hi)]);
                    let (lo, hi) = (f[2] * inv[1], f[3] * inv[1]);
                    o.store_vec::<2>(row + 8 * $d + col, [bf16::from_f32(lo), bf16::from_f32(hi)]);
                }
            }
        }
    };
}

/// Every kernel of the benchmark, bounds-checked (`$check` = true) or not.
macro_rules! tc_kernels {
    ($check:tt) => {
        tc_gemm!(
            $check,
            gemm_bf16,
            bf16,
            mma_m16n8k16_bf16_f32,
            0.0f32,
            bf16,
            row = 32,
            w = 8,
            chunks = 4,
            stages = 3,
            wait = 1,
            shift = 1,
            mask = 3,
            epilogue = |c, lo, hi, f| {
                // Each bf16 pair in one 4-byte store, as the twin's `__nv_bfloat162`.
                c.store_vec::<2>(lo, [bf16::from_f32(f[0]), bf16::from_f32(f[1])]);
                c.store_vec::<2>(hi, [bf16::from_f32(f[2]), bf16::from_f32(f[3])]);
            }
        );
        tc_gemm!(
            $check,
            gemm_tf32,
            f32,
            mma_m16n8k8_tf32_f32,
            0.0f32,
            f32,
            row = 32,
            w = 4,
            chunks = 8,
            stages = 3,
            wait = 1,
            shift = 0,
            mask = 7,
            epilogue = |c, lo, hi, f| {
                c.store_vec::<2>(lo, [f[0], f[1]]);
                c.store_vec::<2>(hi, [f[2], f[3]]);
            }
        );
        tc_gemm!(
            $check,
            gemm_int8,
            i8,
            mma_m16n8k32_i8_i32,
            0i32,
            i32,
            row = 64,
            w = 16,
            chunks = 4,
            stages = 4,
            wait = 2,
            shift = 1,
            mask = 3,
            epilogue = |c, lo, hi, f| {
                c.store_vec::<2>(lo, [f[0], f[1]]);
                c.store_vec::<2>(hi, [f[2], f[3]]);
            }
        );
        tc_dgemm!($check);
        tc_attention!($check, attention_d64, d = 64, bkv = 128);
        tc_attention!($check, attention_d128, d = 128, bkv = 32);
    };
}

pub mod checked {
    use cudajit::prelude::*;
    tc_kernels!(true);
}

/// The same kernels with `boundscheck = false` (launching them is `unsafe`; every
/// launch passes the shapes that the checked twin's launch proved in bounds).
#[allow(dead_code)]
pub mod nocheck {
    use cudajit::prelude::*;
    tc_kernels!(false);
}
