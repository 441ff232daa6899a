// Complex numbers: num-complex's Complex<f32>/Complex<f64> as a two-field struct,
// arithmetic and methods expanded to scalar math with num-complex's formulas.
use cudajit::prelude::*;
use cudajit::Complex;

#[kernel]
fn fft_stage(input: &[Complex<f32>], output: &mut [Complex<f32>], half: usize) {
    let t = grid(1);
    if t < input.len() / 2 {
        let j = t % half;
        let base = (t / half) * 2 * half;
        let angle = -std::f32::consts::PI * j as f32 / half as f32;
        let w = Complex::new(0.0f32, angle).exp();
        let a = input[base + j];
        let b = w * input[base + j + half];
        output[base + j] = a + b;
        output[base + j + half] = a - b;
    }
}

#[kernel]
fn complex_methods(z: &[Complex<f64>], p: f64, out: &mut [Complex<f64>]) {
    let i = grid(1);
    if i < z.len() {
        let a = z[i];
        out[i] = a.sqrt() / a.conj() + a.ln().powf(p) + Complex::new(a.norm(), a.arg());
    }
}
