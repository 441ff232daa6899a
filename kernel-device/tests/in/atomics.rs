// Every atomic on every type CUDA has it for, at every scope: device (plain name),
// block (`_block`) and system (`_system`).

#[kernel]
fn atomics_i32(a: &mut [i32], v: i32) {
    let i = grid(1);
    let mut s = atomic_add(a, i, v) + atomic_sub(a, i, v) + atomic_min(a, i, v);
    s += atomic_max(a, i, v) + atomic_exch(a, i, v) + atomic_and(a, i, v);
    s += atomic_or(a, i, v) + atomic_xor(a, i, v) + atomic_cas(a, i, v, s);
    s += atomic_add_block(a, i, v) + atomic_sub_block(a, i, v) + atomic_min_block(a, i, v);
    s += atomic_max_block(a, i, v) + atomic_exch_block(a, i, v) + atomic_and_block(a, i, v);
    s += atomic_or_block(a, i, v) + atomic_xor_block(a, i, v) + atomic_cas_block(a, i, v, s);
    s += atomic_add_system(a, i, v) + atomic_sub_system(a, i, v) + atomic_min_system(a, i, v);
    s += atomic_max_system(a, i, v) + atomic_exch_system(a, i, v) + atomic_and_system(a, i, v);
    s += atomic_or_system(a, i, v) + atomic_xor_system(a, i, v) + atomic_cas_system(a, i, v, s);
    a[0] = s;
}

#[kernel]
fn atomics_u32(a: &mut [u32], v: u32) {
    let i = grid(1);
    let mut s = atomic_add(a, i, v) + atomic_sub(a, i, v) + atomic_min(a, i, v);
    s += atomic_max(a, i, v) + atomic_exch(a, i, v) + atomic_and(a, i, v);
    s += atomic_or(a, i, v) + atomic_xor(a, i, v) + atomic_cas(a, i, v, s);
    s += atomic_inc(a, i, v) + atomic_dec(a, i, v);
    s += atomic_min_block(a, i, v) + atomic_max_block(a, i, v) + atomic_sub_block(a, i, v);
    s += atomic_inc_block(a, i, v) + atomic_dec_block(a, i, v);
    s += atomic_min_system(a, i, v) + atomic_max_system(a, i, v);
    s += atomic_inc_system(a, i, v) + atomic_dec_system(a, i, v);
    a[0] = s;
}

/// u64 `atomic_inc` / `atomic_dec` (Numba's): a compare-and-swap loop at each scope.
#[kernel]
fn atomics_wrapping_u64(a: &mut [u64], v: u64) {
    let i = grid(1);
    let mut s = atomic_inc(a, i, v) + atomic_dec(a, i, v);
    s += atomic_inc_block(a, i, v) + atomic_dec_block(a, i, v);
    s += atomic_inc_system(a, i, v) + atomic_dec_system(a, i, v);
    a[0] = s;
}

#[kernel]
fn atomics_i64(a: &mut [i64], b: &mut [u64], v: i64, w: u64) {
    let i = grid(1);
    let mut s = atomic_add(a, i, v) + atomic_sub(a, i, v) + atomic_min(a, i, v);
    s += atomic_max(a, i, v) + atomic_exch(a, i, v) + atomic_and(a, i, v);
    s += atomic_or(a, i, v) + atomic_xor(a, i, v) + atomic_cas(a, i, v, s);
    s += atomic_max_block(a, i, v) + atomic_cas_system(a, i, v, s);
    let mut t = atomic_add(b, i, w) + atomic_sub(b, i, w) + atomic_min(b, i, w);
    t += atomic_max(b, i, w) + atomic_exch(b, i, w) + atomic_and(b, i, w);
    t += atomic_or(b, i, w) + atomic_xor(b, i, w) + atomic_cas(b, i, w, t);
    t += atomic_min_block(b, i, w) + atomic_max_system(b, i, w) + atomic_xor_block(b, i, w);
    a[0] = s;
    b[0] = t;
}

#[kernel]
fn atomics_float(a: &mut [f32], b: &mut [f64], v: f32, w: f64) {
    let i = grid(1);
    let mut s = atomic_add(a, i, v) + atomic_sub(a, i, v) + atomic_min(a, i, v);
    s += atomic_max(a, i, v) + atomic_exch(a, i, v);
    s += atomic_add_block(a, i, v) + atomic_max_block(a, i, v) + atomic_exch_system(a, i, v);
    let mut t = atomic_add(b, i, w) + atomic_sub(b, i, w) + atomic_min(b, i, w);
    t += atomic_max(b, i, w) + atomic_exch(b, i, w);
    t += atomic_add_system(b, i, w) + atomic_min_system(b, i, w) + atomic_sub_block(b, i, w);
    a[0] = s;
    b[0] = t;
}

// The histogram of the GPU test: the literal `1` takes the slice's element type.
#[kernel]
fn histogram(data: &[u8], bins: &mut [u32]) {
    let i = grid(1);
    if i < data.len() {
        atomic_add(bins, data[i] as usize, 1);
    }
}

// Shared-memory atomics: a per-block histogram in a shared array (`&mut [u32; 256]`
// coerces to `&mut [u32]`), block-scoped, then one global atomic per bin, and an
// atomic on a row of a 2-D shared array.
#[kernel]
fn shared_histogram(data: &[u8], bins: &mut [u32]) {
    let local = shared_array::<[u32; 256]>();
    let rows = shared_array::<[[f32; 32]; 4]>();
    let t = thread_idx().x as usize;
    if t < 256 {
        local[t] = 0;
    }
    if t < 32 {
        rows[0][t] = 0.0;
    }
    sync_threads();
    let i = grid(1);
    if i < data.len() {
        atomic_add_block(local, data[i] as usize, 1);
        atomic_max_block(&mut rows[0], t % 32, data[i] as f32);
    }
    sync_threads();
    if t < 256 {
        atomic_add(bins, t, local[t]);
    }
}
