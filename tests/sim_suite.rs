//! The simulator against GPU concurrency bugs as a user meets them: bug classes from
//! the race-detection literature (GPUVerify, HiRace, iGUARD, Barracuda, Faial) and
//! from real CUDA/Numba mistakes, each beside its fixed version, plus correct kernels
//! that a naive detector would flag (traps). Every bug must be found with the default
//! settings and with 8 schedules, in each of 3 seeded runs; every fix and trap must run
//! clean; every run has a deadline that fails the test instead of hanging it.
//!
//! Every kernel takes `(a: &mut [u32], b: &mut [u32])`, 256 elements each, `a[i] = i`
//! and `b` zeroed, so one harness launches them all.

use std::sync::mpsc;
use std::time::Duration;

use cudajit::prelude::*;
use cudajit::{Error, SimOptions};

const N: usize = 256;
const DEADLINE: Duration = Duration::from_secs(60);

type Launch = fn(&Device) -> cudajit::Result<()>;

/// Runs `launch` on a simulated device with `options`, in a thread with a deadline.
fn run_with(name: &str, launch: Launch, options: SimOptions) -> cudajit::Result<()> {
    let (tx, rx) = mpsc::channel();
    let given = options.clone();
    std::thread::spawn(move || {
        let device = Device::simulator_with(given);
        let _ = tx.send(launch(&device));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(result) => result,
        Err(_) => panic!("`{name}` did not finish within {DEADLINE:?} ({options:?})"),
    }
}

fn runs() -> impl Iterator<Item = SimOptions> {
    [1u32, 8].into_iter().flat_map(|schedules| {
        (0..3u64).map(move |k| SimOptions {
            seed: 11 + k * 7919,
            schedules,
            ..SimOptions::default()
        })
    })
}

fn expect_bug(name: &str, launch: Launch) {
    for options in runs() {
        match run_with(name, launch, options.clone()) {
            Err(e @ Error::Simulator { .. }) => {
                // `SIM_SUITE_SHOW=1 cargo test --test sim_suite -- --nocapture` to
                // review every report.
                if std::env::var_os("SIM_SUITE_SHOW").is_some() {
                    eprintln!("{name} ({} schedules): {e}", options.schedules);
                }
            }
            Err(other) => panic!("`{name}` ({options:?}): expected a simulator fault, got {other}"),
            Ok(()) => panic!("`{name}` ran clean ({options:?}), but it is broken"),
        }
    }
}

fn expect_clean(name: &str, launch: Launch) {
    for options in runs() {
        if let Err(e) = run_with(name, launch, options.clone()) {
            panic!("`{name}` ({options:?}) is correct, but: {e}");
        }
    }
}

fn inputs() -> (Vec<u32>, Vec<u32>) {
    ((0..N as u32).collect(), vec![0; N])
}

/// A test for a bug and its fix, each launched as `kernel[grid, block]`.
macro_rules! pair {
    ($test:ident: $bug:ident / $fix:ident [$grid:expr, $block:expr]) => {
        #[test]
        fn $test() {
            expect_bug(stringify!($bug), |d| {
                let (mut a, mut b) = inputs();
                let s = d.default_stream();
                launch!($bug[$grid, $block, s](&mut a, &mut b))
            });
            expect_clean(stringify!($fix), |d| {
                let (mut a, mut b) = inputs();
                let s = d.default_stream();
                launch!($fix[$grid, $block, s](&mut a, &mut b))
            });
        }
    };
}

/// A correct kernel that must run clean.
macro_rules! trap {
    ($test:ident: $k:ident [$grid:expr, $block:expr]) => {
        #[test]
        fn $test() {
            expect_clean(stringify!($k), |d| {
                let (mut a, mut b) = inputs();
                let s = d.default_stream();
                launch!($k[$grid, $block, s](&mut a, &mut b))
            });
        }
    };
}

// ---- 1. tree reduction without the barrier between steps (GPUVerify's classic) ----
#[kernel]
fn b01(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    let mut k = 32;
    while k > 0 {
        if t < k {
            s[t] = s[t] + s[t + k];
        }
        k /= 2;
    }
    if t == 0 {
        b[0] = s[0];
    }
}
#[kernel]
fn f01(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    let mut k = 32;
    while k > 0 {
        if t < k {
            s[t] = s[t] + s[t + k];
        }
        sync_threads();
        k /= 2;
    }
    if t == 0 {
        b[0] = s[0];
    }
}
pair!(tree_reduction_without_barrier: b01 / f01 [1, 64]);

// ---- 2. stencil reads a neighbour's shared element without a barrier -------------
#[kernel]
fn b02(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    b[t] = s[(t + 1) % 64] + s[t];
}
#[kernel]
fn f02(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    b[t] = s[(t + 1) % 64] + s[t];
}
pair!(stencil_without_barrier: b02 / f02 [1, 64]);

// ---- 3. a global counter incremented without an atomic ---------------------------
#[kernel]
fn b03(a: &mut [u32], b: &mut [u32]) {
    if a[grid(1)] % 2 == 0 {
        b[0] += 1;
    }
}
#[kernel]
fn f03(a: &mut [u32], b: &mut [u32]) {
    if a[grid(1)] % 2 == 0 {
        atomic_add(b, 0, 1);
    }
}
pair!(counter_without_atomic: b03 / f03 [2, 64]);

// ---- 4. shared histogram with plain increments ------------------------------------
#[kernel]
fn b04(a: &mut [u32], b: &mut [u32]) {
    let h = shared_array::<[u32; 8]>();
    let t = thread_idx().x as usize;
    if t < 8 {
        h[t] = 0;
    }
    sync_threads();
    h[(a[t] % 8) as usize] += 1;
    sync_threads();
    if t < 8 {
        b[t] = h[t];
    }
}
#[kernel]
fn f04(a: &mut [u32], b: &mut [u32]) {
    let h = shared_array::<[u32; 8]>();
    let t = thread_idx().x as usize;
    if t < 8 {
        h[t] = 0;
    }
    sync_threads();
    atomic_add_block(h, (a[t] % 8) as usize, 1);
    sync_threads();
    if t < 8 {
        b[t] = h[t];
    }
}
pair!(shared_histogram_without_atomics: b04 / f04 [1, 64]);

// ---- 5. half the tile loaded, the whole tile read ---------------------------------
#[kernel]
fn b05(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    if t < 32 {
        s[t] = a[t];
    }
    sync_threads();
    b[t] = s[63 - t];
}
#[kernel]
fn f05(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    b[t] = s[63 - t];
}
pair!(partially_loaded_tile: b05 / f05 [1, 64]);

// ---- 6. every block writes one global element --------------------------------------
#[kernel]
fn b06(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x == 0 {
        b[0] = a[block_idx().x as usize];
    }
}
#[kernel]
fn f06(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x == 0 {
        b[block_idx().x as usize] = a[block_idx().x as usize];
    }
}
pair!(blocks_write_one_element: b06 / f06 [4, 32]);

// ---- 7. every thread writes the same value to one element (benign? not in the model)
#[kernel]
fn b07(a: &mut [u32], b: &mut [u32]) {
    b[0] = 7;
    a[grid(1)] = 1;
}
#[kernel]
fn f07(a: &mut [u32], b: &mut [u32]) {
    if grid(1) == 0 {
        b[0] = 7;
    }
    a[grid(1)] = 1;
}
pair!(same_value_writes: b07 / f07 [2, 64]);

// ---- 8. a barrier in a branch half the block takes ----------------------------------
#[kernel]
fn b08(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 32 {
        sync_threads();
    }
    b[t] = a[t];
}
#[kernel]
fn f08(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    sync_threads();
    b[t] = a[t];
}
pair!(barrier_in_half_taken_branch: b08 / f08 [1, 64]);

// ---- 9. a barrier in a branch that splits a warp -----------------------------------
#[kernel]
fn b09(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t % 2 == 0 {
        sync_threads();
    }
    b[t] = a[t];
}
pair!(barrier_in_warp_divergent_branch: b09 / f08 [1, 64]);

// ---- 10. two different barriers in if / else -------------------------------------------
#[kernel]
fn b10(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 32 {
        b[t] = a[t];
        sync_threads();
    } else {
        sync_threads();
        b[t] = a[t];
    }
}
pair!(different_barriers_in_if_else: b10 / f08 [1, 64]);

// ---- 11. a shuffle with the full mask inside a divergent branch -----------------------
#[kernel]
fn b11(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 16 {
        b[t] = shfl_down_sync(0xffff_ffff, a[t], 1);
    }
}
#[kernel]
fn f11(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = shfl_down_sync(0xffff_ffff, a[t], 1);
    if t < 16 {
        b[t] = v;
    }
}
pair!(shuffle_mask_names_inactive_lanes: b11 / f11 [1, 32]);

// ---- 12. lanes of one warp exchange through shared memory without sync_warp ----------
#[kernel]
fn b12(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    b[t] = s[t ^ 1];
}
#[kernel]
fn f12(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_warp(0xffff_ffff);
    b[t] = s[t ^ 1];
}
pair!(warp_exchange_without_sync_warp: b12 / f12 [1, 32]);

// ---- 13. the pre-Volta "warp-synchronous" last steps of a reduction -----------------
#[kernel]
fn b13(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    if t < 32 {
        s[t] += s[t + 32];
        s[t] += s[(t + 16) % 64];
        s[t] += s[(t + 8) % 64];
    }
    if t == 0 {
        b[0] = s[0];
    }
}
#[kernel]
fn f13(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    if t < 32 {
        let mut v = s[t] + s[t + 32];
        v += shfl_down_sync(0xffff_ffff, v, 16);
        v += shfl_down_sync(0xffff_ffff, v, 8);
        if t == 0 {
            b[0] = v;
        }
    }
}
pair!(warp_synchronous_reduction: b13 / f13 [1, 64]);

// ---- 14. message passing between blocks without the writer's fence -------------------
#[kernel]
fn b14(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x;
    if block_idx().x == 1 && t == 0 {
        a[100] = 42;
        atomic_exch(b, 0, 1);
    }
    if block_idx().x == 0 && t == 0 {
        while atomic_add(b, 0, 0) == 0 {}
        b[1] = a[100];
    }
}
#[kernel]
fn f14(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x;
    if block_idx().x == 1 && t == 0 {
        a[100] = 42;
        threadfence();
        atomic_exch(b, 0, 1);
    }
    if block_idx().x == 0 && t == 0 {
        while atomic_add(b, 0, 0) == 0 {}
        b[1] = a[100];
    }
}
pair!(message_passing_between_blocks_without_fence: b14 / f14 [2, 32]);

// ---- 15. message passing between warps of a block without the fence -----------------
#[kernel]
fn b15(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x;
    if t == 40 {
        a[100] = 42;
        atomic_exch(b, 0, 1);
    }
    if t == 0 {
        while atomic_add(b, 0, 0) == 0 {}
        b[1] = a[100];
    }
}
#[kernel]
fn f15(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x;
    if t == 40 {
        a[100] = 42;
        threadfence_block();
        atomic_exch(b, 0, 1);
    }
    if t == 0 {
        while atomic_add(b, 0, 0) == 0 {}
        b[1] = a[100];
    }
}
pair!(message_passing_in_block_without_fence: b15 / f15 [1, 64]);

// ---- 16. a leader elected by atomic_cas publishes with a plain store mid-window ------
#[kernel]
fn b16(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        atomic_exch(b, 0, 1);
        a[0] = 42;
        atomic_exch(b, 0, 0);
    } else if t % 32 == 0 {
        if atomic_add(b, 0, 0) == 1 {
            b[t / 32] = a[0];
        }
    }
}
#[kernel]
fn f16(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        a[0] = 42;
    }
    sync_threads();
    if t % 32 == 0 && t > 0 {
        b[t / 32] = a[0];
    }
}
pair!(leader_publishes_inside_a_window: b16 / f16 [1, 256]);

// ---- 17. thread 0 zeroes an accumulator that every thread adds to atomically ----------
#[kernel]
fn b17(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        b[0] = 0;
    }
    atomic_add(b, 0, a[t]);
}
#[kernel]
fn f17(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        b[0] = 0;
    }
    sync_threads();
    atomic_add(b, 0, a[t]);
}
pair!(plain_store_beside_atomics: b17 / f17 [1, 64]);

// ---- 18. a block-scoped atomic on a counter every block updates -----------------------
#[kernel]
fn b18(a: &mut [u32], b: &mut [u32]) {
    atomic_add_block(b, 0, a[grid(1)]);
}
#[kernel]
fn f18(a: &mut [u32], b: &mut [u32]) {
    atomic_add(b, 0, a[grid(1)]);
}
pair!(block_scoped_atomic_across_blocks: b18 / f18 [4, 32]);

// ---- 19. reading an atomic total before every thread has added ----------------------
#[kernel]
fn b19(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    atomic_add(b, 0, 1);
    if t == 0 {
        b[1] = b[0];
    }
    a[t] = 0;
}
#[kernel]
fn f19(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    atomic_add(b, 0, 1);
    sync_threads();
    if t == 0 {
        b[1] = b[0];
    }
    a[t] = 0;
}
pair!(read_of_atomic_total_without_barrier: b19 / f19 [1, 64]);

// ---- 20. in-place shift: write-after-read without a barrier ---------------------------
#[kernel]
fn b20(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 65]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    if t == 0 {
        s[64] = 0;
    }
    sync_threads();
    s[t] = s[t + 1];
    sync_threads();
    b[t] = s[t];
}
#[kernel]
fn f20(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 65]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    if t == 0 {
        s[64] = 0;
    }
    sync_threads();
    let v = s[t + 1];
    sync_threads();
    s[t] = v;
    sync_threads();
    b[t] = s[t];
}
pair!(in_place_shift_write_after_read: b20 / f20 [1, 64]);

// ---- 21. double buffering missing the barrier at the end of each step ---------------
#[kernel]
fn b21(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    let mut v = a[t];
    for _ in 0..3 {
        s[t] = v;
        sync_threads();
        v = s[(t + 1) % 64] + v;
    }
    b[t] = v;
}
#[kernel]
fn f21(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    let mut v = a[t];
    for _ in 0..3 {
        s[t] = v;
        sync_threads();
        v = s[(t + 1) % 64] + v;
        sync_threads();
    }
    b[t] = v;
}
pair!(loop_missing_trailing_barrier: b21 / f21 [1, 64]);

// ---- 22. blocks read other blocks' results without grid_sync --------------------------
#[kernel]
fn b22(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    b[i] = a[i] * 2;
    sync_threads();
    a[i] = b[(i + 64) % 128];
}
#[kernel]
fn f22(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    b[i] = a[i] * 2;
    grid_sync();
    a[i] = b[(i + 64) % 128];
}
pair!(cross_block_read_without_grid_sync: b22 / f22 [2, 64]);

// ---- 23. threadFenceReduction's last block without the fence --------------------------
#[kernel]
fn b23(a: &mut [u32], b: &mut [u32]) {
    let blk = block_idx().x as usize;
    if thread_idx().x == 0 {
        b[8 + blk] = a[blk] + 1;
        let done = atomic_add(b, 0, 1);
        if done == grid_dim().x - 1 {
            let mut sum = 0;
            for k in 0..grid_dim().x as usize {
                sum += b[8 + k];
            }
            b[1] = sum;
        }
    }
}
#[kernel]
fn f23(a: &mut [u32], b: &mut [u32]) {
    let blk = block_idx().x as usize;
    if thread_idx().x == 0 {
        b[8 + blk] = a[blk] + 1;
        threadfence();
        let done = atomic_add(b, 0, 1);
        if done == grid_dim().x - 1 {
            let mut sum = 0;
            for k in 0..grid_dim().x as usize {
                sum += b[8 + k];
            }
            b[1] = sum;
        }
    }
}
pair!(last_block_without_fence: b23 / f23 [4, 32]);

// ---- 24. an index that folds two threads onto one element ------------------------------
#[kernel]
fn b24(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t / 2] = a[t];
    sync_threads();
    b[t] = s[t / 2];
}
#[kernel]
fn f24(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    b[t] = s[t / 2];
}
pair!(index_folds_two_threads: b24 / f24 [1, 64]);

// ---- 25. a reader that runs before the writer, no barrier between -------------------
#[kernel]
fn b25(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 8]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        b[0] = s[5];
    }
    if t == 37 {
        s[5] = a[t];
    }
}
#[kernel]
fn f25(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 8]>();
    let t = thread_idx().x as usize;
    if t == 37 {
        s[5] = a[t];
    }
    sync_threads();
    if t == 0 {
        b[0] = s[5];
    }
}
pair!(read_before_write_no_barrier: b25 / f25 [1, 64]);

// ---- 26. a spin on a flag that nobody sets ---------------------------------------------
#[kernel]
fn b26(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x == 0 {
        while atomic_add(b, 0, 0) == 0 {}
        a[0] = 1;
    }
}
#[kernel]
fn f26(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x == 33 {
        atomic_exch(b, 0, 1);
    }
    if thread_idx().x == 0 {
        while atomic_add(b, 0, 0) == 0 {}
        a[0] = 1;
    }
}
pair!(spin_nobody_ends: b26 / f26 [1, 64]);

// ---- 27. the flag is set after a barrier the spinning thread never reaches ------------
#[kernel]
fn b27(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        while atomic_add(b, 0, 0) == 0 {}
    }
    sync_threads();
    if t == 33 {
        atomic_exch(b, 0, 1);
    }
    a[t as usize] = 1;
}
#[kernel]
fn f27(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x;
    if t == 33 {
        atomic_exch(b, 0, 1);
    }
    if t == 0 {
        while atomic_add(b, 0, 0) == 0 {}
    }
    sync_threads();
    a[t as usize] = 1;
}
pair!(spin_across_a_barrier: b27 / f27 [1, 64]);

// ---- 28. a lock taken with plain loads and stores ------------------------------------
#[kernel]
fn b28(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x % 32 == 0 {
        if b[0] == 0 {
            b[0] = 1;
            b[1] += 1;
            b[0] = 0;
        }
    }
}
#[kernel]
fn f28(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x % 32 == 0 {
        loop {
            if atomic_cas(b, 0, 0, 1) == 0 {
                threadfence();
                b[1] += 1;
                threadfence();
                atomic_exch(b, 0, 0);
                break;
            }
        }
    }
}
pair!(lock_with_plain_accesses: b28 / f28 [1, 128]);

// ---- 29. a barrier in a loop whose trip count depends on the thread -------------------
#[kernel]
fn b29(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    for _ in 0..(1 + t / 32) {
        sync_threads();
    }
    b[t] = a[t];
}
#[kernel]
fn f29(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    for _ in 0..2 {
        sync_threads();
    }
    b[t] = a[t];
}
pair!(barrier_in_thread_dependent_loop: b29 / f29 [1, 64]);

// ---- 30. reversing a global array in place across blocks -------------------------------
#[kernel]
fn b30(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let v = a[127 - i];
    a[i] = v;
    b[i] = 0;
}
#[kernel]
fn f30(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    b[i] = a[127 - i];
}
pair!(in_place_reverse_across_blocks: b30 / f30 [2, 64]);

// ---- 31. a tile indexed by lane instead of thread: warps collide ----------------------
#[kernel]
fn b31(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t % 32] = a[t];
    sync_threads();
    b[t] = s[t % 32];
}
pair!(tile_indexed_by_lane: b31 / f24 [1, 64]);

// ---- 32. one warp reads another warp's partial sum without a barrier ------------------
#[kernel]
fn b32(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 2]>();
    let t = thread_idx().x as usize;
    let v = warp_reduce_sum(a[t]);
    if t % 32 == 0 {
        s[t / 32] = v;
    }
    if t == 0 {
        b[0] = s[0] + s[1];
    }
}
#[kernel]
fn f32_(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 2]>();
    let t = thread_idx().x as usize;
    let v = warp_reduce_sum(a[t]);
    if t % 32 == 0 {
        s[t / 32] = v;
    }
    sync_threads();
    if t == 0 {
        b[0] = s[0] + s[1];
    }
}
pair!(cross_warp_partials_without_barrier: b32 / f32_ [1, 64]);

// ---- 33. a global histogram with plain increments ----------------------------------------
#[kernel]
fn b33(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    b[(a[i] % 8) as usize] += 1;
}
#[kernel]
fn f33(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    atomic_add(b, (a[i] % 8) as usize, 1);
}
pair!(global_histogram_without_atomics: b33 / f33 [2, 64]);

// ---- 34. a device function that writes a shared scratch cell from every thread -------
#[device]
fn stash(s: &mut [u32], v: u32) -> u32 {
    s[0] = v;
    s[0]
}
#[kernel]
fn b34(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    b[t] = stash(&mut s[..], a[t]);
}
#[kernel]
fn f34(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    b[t] = stash(&mut s[t..], a[t]);
}
pair!(device_function_shares_scratch: b34 / f34 [1, 64]);

// ---- 35. a 2-D tile transposed without the barrier ---------------------------------------
#[kernel]
fn b35(a: &mut [u32], b: &mut [u32]) {
    let tile = shared_array::<[[u32; 8]; 8]>();
    let (x, y) = (thread_idx().x as usize, thread_idx().y as usize);
    tile[y][x] = a[y * 8 + x];
    b[y * 8 + x] = tile[x][y];
}
#[kernel]
fn f35(a: &mut [u32], b: &mut [u32]) {
    let tile = shared_array::<[[u32; 8]; 8]>();
    let (x, y) = (thread_idx().x as usize, thread_idx().y as usize);
    tile[y][x] = a[y * 8 + x];
    sync_threads();
    b[y * 8 + x] = tile[x][y];
}
pair!(tile_transpose_without_barrier: b35 / f35 [1, (8, 8)]);

// ---- 36. check-then-act: "first writer wins" with a plain test ----------------------
#[kernel]
fn b36(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    if i % 32 == 0 {
        if b[0] == 0 {
            b[0] = a[i] + 1;
        }
    }
}
#[kernel]
fn f36(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    if i % 32 == 0 {
        atomic_cas(b, 0, 0, a[i] + 1);
    }
}
pair!(check_then_act: b36 / f36 [2, 64]);

// ---- 37. a shuffle whose source lane is outside the mask -----------------------------
#[kernel]
fn b37(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 16 {
        b[t] = shfl_down_sync(0xffff, a[t], 1);
    }
}
#[kernel]
fn f37(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 16 {
        b[t] = shfl_sync(0xffff, a[t], ((t + 1) % 16) as u32);
    }
}
pair!(shuffle_source_outside_mask: b37 / f37 [1, 32]);

// ---- 38. sync_warp with a mask that leaves out lanes that exchange ------------------
#[kernel]
fn b38(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    if t < 16 {
        sync_warp(0xffff);
    } else {
        sync_warp(0xffff_0000);
    }
    b[t] = s[31 - t];
}
#[kernel]
fn f38(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_warp(0xffff_ffff);
    b[t] = s[31 - t];
}
pair!(sync_warp_mask_misses_partner: b38 / f38 [1, 32]);

// ---- 39. a block reads another block's shared-memory-derived output mid-flight --------
#[kernel]
fn b39(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[i];
    sync_threads();
    b[i] = s[31 - t];
    if block_idx().x == 1 {
        a[t] = b[t];
    }
}
#[kernel]
fn f39(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[i];
    sync_threads();
    b[i] = s[31 - t];
    if block_idx().x == 1 {
        a[128 + t] = b[32 + t];
    }
}
pair!(block_reads_other_blocks_output: b39 / f39 [2, 32]);

// ---- 40. a second launch-long accumulation reads a partial from the wrong step -------
#[kernel]
fn b40(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    if t > 0 {
        s[t] += s[t - 1];
    }
    sync_threads();
    b[t] = s[t];
}
#[kernel]
fn f40(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    let prev = if t > 0 { s[t - 1] } else { 0 };
    sync_threads();
    s[t] += prev;
    sync_threads();
    b[t] = s[t];
}
pair!(scan_step_reads_updated_neighbour: b40 / f40 [1, 64]);

// ==== traps: correct kernels a naive detector would flag ====================================

// T1. early return before sync_threads (whole warps and part of one).
#[kernel]
fn t01(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 128]>();
    let t = thread_idx().x as usize;
    if t >= 70 {
        return;
    }
    s[t] = a[t];
    sync_threads();
    b[t] = s[69 - t];
}
trap!(early_return_before_barrier: t01 [1, 128]);

// T2. Numba's heat equation: early return, then grid_sync in a loop.
#[kernel]
fn t02(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let n = 100;
    if i >= n {
        return;
    }
    for step in 0..4 {
        if step % 2 == 0 {
            let left = if i > 0 { a[i - 1] } else { 0 };
            b[i] = a[i] / 2 + left / 4;
        } else {
            let left = if i > 0 { b[i - 1] } else { 0 };
            a[i] = b[i] / 2 + left / 4;
        }
        grid_sync();
    }
}
trap!(heat_equation_with_early_return: t02 [4, 32]);

// T3. fence-and-flag handoff inside a block.
trap!(fence_and_flag_in_block: f15 [1, 64]);

// T4. fence-and-flag handoff between blocks.
trap!(fence_and_flag_between_blocks: f14 [2, 32]);

// T5. disjoint writes through a permutation (7 is odd, so i*7 % 256 is one-to-one).
#[kernel]
fn t05(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let j = (i * 7 + 3) % 256;
    b[j] = a[i] * 2;
}
trap!(disjoint_writes_through_permutation: t05 [4, 64]);

// T6. disjoint 2-D strided writes: row-major with a padded pitch.
#[kernel]
fn t06(a: &mut [u32], b: &mut [u32]) {
    let (x, y) = (thread_idx().x as usize, block_idx().x as usize);
    let pitch = 17;
    if x < 16 {
        b[y * pitch + x] = a[y * 16 + x];
    }
}
trap!(disjoint_padded_pitch: t06 [8, 32]);

// T7. a spin lock that terminates (the break-inside idiom), counting in a critical section.
trap!(spin_lock_terminates: f28 [2, 128]);

// T8. the last-block reduction with the fence.
trap!(last_block_with_fence: f23 [4, 32]);

// T9. an atomic histogram in global memory across blocks.
trap!(atomic_histogram: f33 [4, 64]);

// T10. warp exchange with sync_warp, then a shuffle reduction.
trap!(warp_exchange_with_sync_warp: f12 [1, 32]);

// T11. double buffering with both barriers.
trap!(double_buffer_with_barriers: f21 [1, 64]);

// T12. a spin-wait on a flag set by a later block.
#[kernel]
fn t12(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if block_idx().x == 0 && t == 0 {
        while atomic_add(b, 0, 0) < 3 {}
        threadfence();
        b[1] = a[200] + a[201] + a[202];
    } else if t == 0 {
        a[199 + block_idx().x as usize] = 1;
        threadfence();
        atomic_add(b, 0, 1);
    }
}
trap!(spin_waits_for_later_blocks: t12 [4, 32]);

// T13. sync_threads_count with some threads returned early.
#[kernel]
fn t13(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t >= 50 {
        return;
    }
    let n = sync_threads_count(a[t] % 2 == 0);
    b[t] = n;
}
trap!(barrier_count_after_early_return: t13 [1, 64]);

// T14. half-warps each shuffle with their own 16-lane mask.
#[kernel]
fn t14(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    let mask = if t < 16 {
        0x0000_ffffu32
    } else {
        0xffff_0000u32
    };
    let v = shfl_xor_sync(mask, a[t], 1);
    sync_warp(mask);
    b[t] = v;
}
trap!(tiled_half_warp_masks: t14 [1, 32]);
