//! README "The kernel subset": barriers and fences. One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn sync_threads_barrier(out: &mut [f32]) {
    sync_threads();
    out[0] = 1.0;
}

#[kernel]
fn sync_threads_count_predicate(out: &mut [u32]) {
    out[0] = sync_threads_count(thread_idx().x % 2 == 0);
}

#[kernel]
fn sync_threads_and_predicate(out: &mut [bool]) {
    out[0] = sync_threads_and(thread_idx().x < 64);
}

#[kernel]
fn sync_threads_or_predicate(out: &mut [bool]) {
    out[0] = sync_threads_or(thread_idx().x == 0);
}

#[kernel]
fn sync_warp_mask(out: &mut [f32]) {
    sync_warp(u32::MAX);
    out[0] = 1.0;
}

#[kernel]
fn threadfence_block_fence(out: &mut [f32]) {
    out[0] = 1.0;
    threadfence_block();
}

#[kernel]
fn threadfence_device_fence(out: &mut [f32]) {
    out[0] = 1.0;
    threadfence();
}

#[kernel]
fn threadfence_system_fence(out: &mut [f32]) {
    out[0] = 1.0;
    threadfence_system();
}

fn main() {}
