// Sub-slices of every range form, split_at / split_at_mut, views passed to device
// functions, and the same with bounds checks off (no panic sites at all).

#[device]
fn sum(v: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i];
    }
    s
}

#[device]
fn scale(v: &mut [f32], k: f32) {
    for i in 0..v.len() {
        v[i] *= k;
    }
}

#[kernel]
fn sub_slices(a: &[f32], out: &mut [f32], i: usize, j: usize) {
    let total = sum(&a[i..j]) + sum(&a[i..]) + sum(&a[..j]) + sum(&a[..]) + sum(&a[i..=j]);
    let (lo, hi) = out.split_at_mut(4);
    scale(lo, total);
    scale(&mut hi[1..], a[2..][0]);
    let (left, right) = a.split_at(j);
    out[0] = sum(left) - sum(&right[..=1]);
}

#[kernel(boundscheck = false)]
fn sub_slices_unchecked(a: &[f32], out: &mut [f32], i: usize, j: usize) {
    let (lo, hi) = out.split_at_mut(j);
    scale(&mut lo[i..], sum(&a[i..=j]));
    hi[0] = sum(&a[..i]);
}
