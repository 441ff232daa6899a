// Dynamic shared memory: two typed slices carved from the launch's bytes (the u32
// slice aligned after the f32 one), a block reduction through them, and a third
// carve of bytes to show byte alignment needs no rounding.

#[kernel]
fn block_sum_count(x: &[f32], sums: &mut [f32], counts: &mut [u32]) {
    let mut smem = dynamic_shared();
    let n = block_dim().x as usize;
    let vals = smem.take::<f32>(n);
    let cnts = smem.take::<u32>(n);
    let flags = smem.take::<u8>(n);
    let t = thread_idx().x as usize;
    let i = grid(1);
    if i < x.len() {
        vals[t] = x[i];
        cnts[t] = 1;
    } else {
        vals[t] = 0.0;
        cnts[t] = 0;
    }
    flags[t] = 1;
    sync_threads();
    let mut stride = n / 2;
    while stride > 0 {
        if t < stride {
            vals[t] += vals[t + stride];
            cnts[t] += cnts[t + stride];
        }
        sync_threads();
        stride /= 2;
    }
    if t == 0 {
        let b = block_idx().x as usize;
        sums[b] = vals[0];
        counts[b] = cnts[0];
    }
}

// A sub-slice of a dynamic shared slice through a device function: after inlining,
// NVVM infers the shared address space again (`ld.shared` in the PTX).
#[device]
fn tree_sum(v: &mut [f32], t: usize) {
    let mut stride = v.len() / 2;
    while stride > 0 {
        if t < stride {
            v[t] += v[t + stride];
        }
        sync_threads();
        stride /= 2;
    }
}

#[kernel]
fn half_block_sum(x: &[f32], sums: &mut [f32]) {
    let mut smem = dynamic_shared();
    let n = block_dim().x as usize;
    let vals = smem.take::<f32>(n);
    let t = thread_idx().x as usize;
    vals[t] = x[grid(1)];
    sync_threads();
    let (lo, hi) = vals.split_at_mut(n / 2);
    if t < n / 2 {
        lo[t] += hi[t];
    }
    sync_threads();
    tree_sum(&mut lo[..], t);
    if t == 0 {
        sums[block_idx().x as usize] = lo[0];
    }
}
