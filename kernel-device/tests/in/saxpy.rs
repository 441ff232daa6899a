// y = alpha * x + y, the BLAS classic, with a grid-stride loop and no bounds checks.

#[kernel(boundscheck = false)]
fn saxpy(alpha: f32, x: &[f32], y: &mut [f32]) {
    let mut i = grid(1);
    let stride = grid_size(1);
    while i < y.len() {
        y[i] = alpha * x[i] + y[i];
        i += stride;
    }
}
