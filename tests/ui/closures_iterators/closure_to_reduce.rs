// A closure as the operator of a high-level operation (Numba's
// `cuda.reduce(lambda a, b: a + b)`): it must be a `#[device]` function passed with
// `device_fn!(..)`.
fn main() {
    let x = vec![1.0f32; 1024];
    let _ = cudajit::reduce(&x, |a: f32, b: f32| a + b, 0.0);
}
