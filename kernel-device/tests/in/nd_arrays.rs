// N-d array parameters: each `&Nd<T, D>` becomes a slice over the view's span, its
// element offset, shape and strides; `a[(i, j)]` checks each axis (a panic naming it)
// and reads the slice at `origin + i*s0 + j*s1`.

#[kernel]
fn blur5(src: &Nd<f32, 2>, out: &mut Nd<f32, 2>) {
    let (i, j) = grid(2);
    let shape = src.shape();
    if i < shape[0] && j < shape[1] {
        let up = if i > 0 { i - 1 } else { i };
        let down = if i + 1 < shape[0] { i + 1 } else { i };
        let left = if j > 0 { j - 1 } else { j };
        let right = if j + 1 < shape[1] { j + 1 } else { j };
        out[(i, j)] = (src[(i, j)]
            + src[(up, j)]
            + src[(down, j)]
            + src[(i, left)]
            + src[(i, right)])
            * 0.2;
    }
}

#[kernel]
fn scale_3d(v: &mut Nd<f64, 3>, by: f64) {
    let (x, y, z) = grid(3);
    let n = v.shape();
    if z < n[0] && y < n[1] && x < n[2] {
        v[(z, y, x)] *= by;
    }
}
