use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let v: Vec<f32> = Vec::new();
    let f = |x: f32| x * 2.0;
    let s = "text";
    c[0] = f(v[0]) + s.len() as f32;
}

fn main() {}
