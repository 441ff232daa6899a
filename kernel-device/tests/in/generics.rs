// Generic kernels: one unit per instantiation named below.
cudajit::instantiate!(axpy::<f32>, axpy::<i64>, transpose::<f64, 16>);

#[kernel]
fn axpy<T: Num>(a: T, x: &[T], y: &mut [T]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + twice::<T>(y[i]) + T::one();
    }
}

#[device]
fn twice<T: Num>(v: T) -> T {
    v + v
}

#[kernel]
fn transpose<T: Num, const TILE: usize>(input: &[T], output: &mut [T], rows: usize, cols: usize) {
    let tile = shared_array::<[[T; TILE + 1]; TILE]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * TILE + ty;
    let col = block_idx().x as usize * TILE + tx;
    if row < rows && col < cols {
        tile[ty][tx] = input[row * cols + col];
    }
    sync_threads();
    let out_row = block_idx().x as usize * TILE + ty;
    let out_col = block_idx().y as usize * TILE + tx;
    if out_row < cols && out_col < rows {
        output[out_row * rows + out_col] = tile[tx][ty];
    }
}
