// Grid-stride and other stepped / reversed `for` loops: `.step_by(n)` on exclusive and
// inclusive ranges, `.rev()`, `.rev().step_by(n)`, over unsigned, signed and usize
// ranges, up to the type's limits without overflowing; a run-time step gets the
// zero-step panic site, a literal one does not.

#[kernel]
fn grid_stride(a: f32, x: &[f32], y: &mut [f32]) {
    for i in (grid(1)..y.len()).step_by(grid_size(1)) {
        y[i] = a * x[i] + y[i];
    }
}

#[kernel]
fn strided_forms(out: &mut [i64], step: usize, lo: i32, hi: i32) {
    if grid(1) != 0 {
        return;
    }
    let mut n = 0usize;
    for v in (0u8..=255).step_by(100) {
        out[n] = v as i64; // 0, 100, 200
        n += 1;
    }
    for v in (250u8..=255).step_by(3) {
        out[n] = v as i64; // 250, 253
        n += 1;
    }
    for v in (0u32..=u32::MAX).rev().step_by(1 << 31) {
        out[n] = v as i64; // u32::MAX, 2^31 - 1
        n += 1;
    }
    for v in (-5i32..5).step_by(3) {
        out[n] = v as i64; // -5, -2, 1, 4
        n += 1;
    }
    for v in (lo..=hi).rev() {
        out[n] = v as i64;
        n += 1;
    }
    for v in (lo..hi).rev().step_by(step) {
        if v == 3 {
            continue;
        }
        out[n] = v as i64;
        n += 1;
    }
    for v in (i64::MIN..=i64::MAX).step_by(step) {
        if n >= out.len() {
            break;
        }
        out[n] = v;
        n += 1;
    }
}
