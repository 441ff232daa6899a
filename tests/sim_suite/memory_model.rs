//! Atomics and fences (the PTX memory model): message passing with and without the writer's fence, within a block and between blocks; plain accesses beside atomics; scopes.

use cudajit::prelude::*;

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

// ==== traps: correct kernels a naive detector would flag ====================

// T3. fence-and-flag handoff inside a block.
trap!(fence_and_flag_in_block: f15 [1, 64]);

// T4. fence-and-flag handoff between blocks.
trap!(fence_and_flag_between_blocks: f14 [2, 32]);

// T7. a spin lock that terminates (the break-inside idiom), counting in a critical section.
trap!(spin_lock_terminates: f28 [2, 128]);

// T8. the last-block reduction with the fence.
trap!(last_block_with_fence: f23 [4, 32]);
