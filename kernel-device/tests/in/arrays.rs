// Local arrays, crate constants and constant tables.
use cudajit::prelude::*;

const N: usize = 8;
const HALF: usize = N / 2;
const TAPS: [f32; 5] = [0.0625, 0.25, 0.375, 0.25, 0.0625];
static LUT: [u32; 4] = [1, 10, 100, 1000];

#[device]
fn reversed(a: [f32; 4]) -> [f32; 4] {
    [a[3], a[2], a[1], a[0]]
}

#[kernel]
fn local_sum(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i >= out.len() {
        return;
    }
    let mut acc = [0.0f32; N];
    for k in 0..N {
        acc[k] = x[(i + k) % x.len()];
    }
    let mut total = 0.0;
    for k in 0..acc.len() {
        total += acc[k];
    }
    out[i] = total;
}

#[kernel]
fn matrix(out: &mut [i32]) {
    let i = grid(1);
    let mut m = [[0i32; HALF]; HALF + 1];
    for r in 0..HALF + 1 {
        for c in 0..HALF {
            m[r][c] = (r * 10 + c) as i32;
        }
    }
    let row = m[i % (HALF + 1)];
    m[0][1] += row[2];
    out[i] = m[0][1] + row[i % 4];
}

#[kernel]
fn stencil_taps(x: &[f32], y: &mut [f32], z: &mut [u32]) {
    let i = grid(1);
    if i + TAPS.len() > x.len() {
        return;
    }
    let mut s = 0.0;
    for k in 0..TAPS.len() {
        s += TAPS[k] * x[i + k];
    }
    let r = reversed([s, 1.0, 2.0, 3.0]);
    y[i] = r[3] + r[0];
    z[i] = LUT[i % 4];
}

#[kernel]
fn sort4(data: &mut [u32]) {
    let i = grid(1) * 4;
    if i + 4 > data.len() {
        return;
    }
    let mut v = [data[i], data[i + 1], data[i + 2], data[i + 3]];
    let pairs = [[0usize, 1], [2, 3], [0, 2], [1, 3], [1, 2]];
    for p in 0..pairs.len() {
        let (a, b) = (pairs[p][0], pairs[p][1]);
        if v[a] > v[b] {
            let t = v[a];
            v[a] = v[b];
            v[b] = t;
        }
    }
    let flags = [true, false];
    for k in 0..4 {
        data[i + k] = v[k] + flags[k % 2] as u32;
    }
}

#[device]
fn total(v: &[f32]) -> f32 {
    let mut s = 0.0;
    for k in 0..v.len() {
        s += v[k];
    }
    s
}

#[device]
fn fill(v: &mut [f32], x: f32) {
    for k in 0..v.len() {
        v[k] = x;
    }
}

/// Views of arrays: sub-slices of local, 2-D and shared arrays passed on as slices, and
/// a whole constant table copied into a local.
#[kernel]
fn array_views(out: &mut [f32], n: usize) {
    let mut m = [[1.0f32; 4]; 3];
    fill(&mut m[1][..2], 5.0);
    fill(&mut m[2], 7.0);
    let tile = shared_array::<[f32; 64]>();
    fill(&mut tile[..n], 2.0);
    let mut taps = TAPS;
    taps[0] += 1.0;
    let (lo, hi) = taps.split_at(2);
    out[0] = total(&m[1]) + total(&m[2][1..]) + total(&tile[..]) + total(lo) - total(hi);
}
