// Vector add with a device helper: the README's first example.

#[device]
fn square(x: f32) -> f32 {
    x * x
}

#[kernel]
fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = square(a[i]) + b[i];
    }
}
