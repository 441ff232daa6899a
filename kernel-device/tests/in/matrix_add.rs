// 2-D indexing with grid(2): out = a + b for a row-major h x w matrix.

#[kernel]
fn matrix_add(a: &[f64], b: &[f64], out: &mut [f64], w: usize, h: usize) {
    let (x, y) = grid(2);
    if x < w && y < h {
        let k = y * w + x;
        out[k] = a[k] + b[k];
    }
}
