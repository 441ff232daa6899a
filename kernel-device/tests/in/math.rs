// Every math method on f32 and f64, and the integer ones.

#[kernel]
fn math32(x: &mut [f32], n: i32) {
    let i = grid(1);
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let mut s = v.sqrt() + v.cbrt() + v.sin() + v.cos() + v.tan();
    s += v.asin() + v.acos() + v.atan() + v.atan2(s) + v.sinh() + v.cosh() + v.tanh();
    s += v.exp() + v.exp2() + v.exp_m1() + v.ln() + v.log2() + v.log10() + v.ln_1p();
    s += v.powf(s) + v.powi(n) + v.hypot(s) + v.floor() + v.ceil() + v.round() + v.trunc();
    s += v.abs() + v.min(s) + v.max(s) + v.mul_add(s, 1.0) + v.copysign(s) + v.signum();
    x[i] = s;
}

#[kernel]
fn math64(x: &mut [f64], n: i32) {
    let i = grid(1);
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let mut s = v.sqrt() + v.cbrt() + v.sin() + v.cos() + v.tan();
    s += v.asin() + v.acos() + v.atan() + v.atan2(s) + v.sinh() + v.cosh() + v.tanh();
    s += v.exp() + v.exp2() + v.exp_m1() + v.ln() + v.log2() + v.log10() + v.ln_1p();
    s += v.powf(s) + v.powi(n) + v.hypot(s) + v.floor() + v.ceil() + v.round() + v.trunc();
    s += v.abs() + v.min(s) + v.max(s) + v.mul_add(s, 1.0) + v.copysign(s) + v.signum();
    x[i] = s;
}

#[kernel]
fn int_math(x: &mut [i64], y: &mut [u32]) {
    let i = grid(1);
    if i < x.len() && i < y.len() {
        x[i] = x[i].abs().min(7).max(-7);
        y[i] = y[i].min(9).max(3);
    }
}
