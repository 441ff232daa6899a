// Every panic site kind: index out of bounds (read and write), divide/remainder by
// zero, signed MIN / -1 overflow (div and rem), and an unsigned division (zero only).

#[kernel]
fn panics(a: &[i32], out: &mut [i32], d: i32, u: u32) {
    let i = grid(1);
    let x = a[i];
    out[i] = x / d;
    out[i + 1] = x % d;
    out[i + 2] = (u / (u - 1)) as i32;
}
