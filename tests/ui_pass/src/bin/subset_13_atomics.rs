//! README "The kernel subset", atomics on a `&mut [T]` element (a global slice, a
//! shared array, a shared row): add, sub, min, max, exch for every atomic type; and,
//! or, xor, cas for integers; inc / dec for `u32`; each also with block and system
//! scope. One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn atomic_add_every_type(
    a: &mut [i32],
    b: &mut [u32],
    c: &mut [i64],
    d: &mut [u64],
    e: &mut [f32],
    f: &mut [f64],
) {
    let _ = atomic_add(a, 0, 1) + atomic_add_block(a, 1, 1) + atomic_add_system(a, 2, 1);
    let _ = atomic_add(b, 0, 1u32);
    let _ = atomic_add(c, 0, 1i64);
    let _ = atomic_add(d, 0, 1u64);
    let _ = atomic_add(e, 0, 1.0f32);
    let _ = atomic_add(f, 0, 1.0f64);
}

#[kernel]
fn atomic_sub_every_type(
    a: &mut [i32],
    b: &mut [u32],
    c: &mut [i64],
    d: &mut [u64],
    e: &mut [f32],
    f: &mut [f64],
) {
    let _ = atomic_sub(a, 0, 1) + atomic_sub_block(a, 1, 1) + atomic_sub_system(a, 2, 1);
    let _ = atomic_sub(b, 0, 1u32);
    let _ = atomic_sub(c, 0, 1i64);
    let _ = atomic_sub(d, 0, 1u64);
    let _ = atomic_sub(e, 0, 1.0f32);
    let _ = atomic_sub(f, 0, 1.0f64);
}

#[kernel]
fn atomic_min_every_type(
    a: &mut [i32],
    b: &mut [u32],
    c: &mut [i64],
    d: &mut [u64],
    e: &mut [f32],
    f: &mut [f64],
) {
    let _ = atomic_min(a, 0, 1) + atomic_min_block(a, 1, 1) + atomic_min_system(a, 2, 1);
    let _ = atomic_min(b, 0, 1u32);
    let _ = atomic_min(c, 0, 1i64);
    let _ = atomic_min(d, 0, 1u64);
    let _ = atomic_min(e, 0, 1.0f32);
    let _ = atomic_min(f, 0, 1.0f64);
}

#[kernel]
fn atomic_max_every_type(
    a: &mut [i32],
    b: &mut [u32],
    c: &mut [i64],
    d: &mut [u64],
    e: &mut [f32],
    f: &mut [f64],
) {
    let _ = atomic_max(a, 0, 1) + atomic_max_block(a, 1, 1) + atomic_max_system(a, 2, 1);
    let _ = atomic_max(b, 0, 1u32);
    let _ = atomic_max(c, 0, 1i64);
    let _ = atomic_max(d, 0, 1u64);
    let _ = atomic_max(e, 0, 1.0f32);
    let _ = atomic_max(f, 0, 1.0f64);
}

#[kernel]
fn atomic_exch_every_type(
    a: &mut [i32],
    b: &mut [u32],
    c: &mut [i64],
    d: &mut [u64],
    e: &mut [f32],
    f: &mut [f64],
) {
    let _ = atomic_exch(a, 0, 1) + atomic_exch_block(a, 1, 1) + atomic_exch_system(a, 2, 1);
    let _ = atomic_exch(b, 0, 1u32);
    let _ = atomic_exch(c, 0, 1i64);
    let _ = atomic_exch(d, 0, 1u64);
    let _ = atomic_exch(e, 0, 1.0f32);
    let _ = atomic_exch(f, 0, 1.0f64);
}

#[kernel]
fn atomic_and_or_xor(a: &mut [i32], b: &mut [u32], c: &mut [i64], d: &mut [u64]) {
    let _ = atomic_and(a, 0, 1) + atomic_and_block(a, 1, 1) + atomic_and_system(a, 2, 1);
    let _ = atomic_or(b, 0, 1u32) + atomic_or_block(b, 1, 1) + atomic_or_system(b, 2, 1);
    let _ = atomic_xor(c, 0, 1i64) + atomic_xor_block(c, 1, 1) + atomic_xor_system(c, 2, 1);
    let _ = atomic_and(d, 0, 1u64) + atomic_or(d, 1, 1u64) + atomic_xor(d, 2, 1u64);
}

#[kernel]
fn atomic_cas_every_integer(a: &mut [i32], b: &mut [u32], c: &mut [i64], d: &mut [u64]) {
    let _ = atomic_cas(a, 0, 0, 1) + atomic_cas_block(a, 1, 0, 1) + atomic_cas_system(a, 2, 0, 1);
    let _ = atomic_cas(b, 0, 0u32, 1u32);
    let _ = atomic_cas(c, 0, 0i64, 1i64);
    let _ = atomic_cas(d, 0, 0u64, 1u64);
}

#[kernel]
fn atomic_inc_dec(a: &mut [u32]) {
    let _ = atomic_inc(a, 0, 10) + atomic_inc_block(a, 1, 10) + atomic_inc_system(a, 2, 10);
    let _ = atomic_dec(a, 3, 10) + atomic_dec_block(a, 4, 10) + atomic_dec_system(a, 5, 10);
}

#[kernel]
fn atomic_on_shared_array(out: &mut [u32]) {
    let hist = shared_array::<[u32; 16]>();
    let _ = atomic_add(hist, (thread_idx().x % 16) as usize, 1);
    sync_threads();
    out[0] = hist[0];
}

#[kernel]
fn atomic_on_shared_row(out: &mut [f32]) {
    let tile: &mut [[f32; 8]; 4] = shared_array();
    let r = (thread_idx().x % 4) as usize;
    let _ = atomic_add(&mut tile[r], 0, 1.0);
    sync_threads();
    out[0] = tile[0][0];
}

fn main() {}
