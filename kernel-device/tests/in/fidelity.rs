// Issue 7: exact float semantics. `a * b + c` stays two roundings (libnvvm is run
// with `-fma=0`, so the IR's separate fmul/fadd reach PTX as `mul.rn`/`add.rn`);
// `mul_add` is the one fused operation; float `%` is libdevice's exact fmod; literals
// and degree factors are std's bit for bit; an index is reported as a usize.

#[kernel]
fn contract(a: &[f32], b: &[f32], c: &mut [f64]) {
    let i = grid(1);
    if i < c.len() {
        let x = a[i] * b[i] + 1.5f32;
        let y = (a[i] as f64) * (b[i] as f64) - c[i];
        c[i] = x as f64 + y + (a[i] as f64).mul_add(2.0, y);
    }
}

#[kernel]
fn remainders(a: &mut [f32], b: &mut [f64]) {
    let i = grid(1);
    if i < a.len() && i < b.len() {
        a[i] = a[i] % 0.1f32;
        a[i] %= 3.0;
        b[i] = b[i] % 1e300;
        b[i] %= 7.5;
    }
}

#[kernel]
fn constants(a: &mut [f32], b: &mut [f64]) {
    let i = grid(1);
    if i < a.len() && i < b.len() {
        a[i] = a[i].to_degrees() + a[i].to_radians() + 0.09999999776482582092285156250001f32;
        b[i] = b[i].to_degrees() + b[i].to_radians() + 0.09999999776482582092285156250001;
    }
}

#[kernel]
fn negative_index(a: &mut [i32], k: i64) {
    a[k as usize] = 1;
}
