//! N-d array parameters that must compile: 2-D and 3-D, read and written, `shape()`,
//! indices from expressions, and every kind of argument a launch takes for them.
use cudajit::ndarray::{s, Array2, Array3};
use cudajit::prelude::*;

#[kernel]
fn transpose_add(a: &Nd<f32, 2>, b: &Nd<f32, 2>, out: &mut Nd<f32, 2>) {
    let (i, j) = grid(2);
    let shape = out.shape();
    if i < shape[0] && j < shape[1] {
        out[(i, j)] = a[(j, i)] + b[(i, j)] * shape[1] as f32;
    }
}

#[kernel]
fn volume(v: &mut Nd<u32, 3>, scale: u32) {
    let (x, y, z) = grid(3);
    let n = v.shape();
    if x < n[2] && y < n[1] && z < n[0] {
        v[(z, y, x)] += scale * v[(z, n[1] - 1 - y, x)];
    }
}

#[allow(dead_code)]
fn launches() -> cudajit::Result<()> {
    let a = Array2::<f32>::zeros((4, 8));
    let b = Array2::<f32>::zeros((8, 4));
    let mut out = Array2::<f32>::zeros((8, 4));
    launch!(transpose_add[(1, 1), (8, 4)](&a, &b, &mut out))?;
    launch!(transpose_add[(1, 1), (8, 4)](a.view(), b.t().t(), out.view_mut()))?;
    launch!(transpose_add[1, 1](a.slice(s![..;2, ..]), &b, out.slice_mut(s![.., ..;-1])))?;
    let mut v = Array3::<u32>::zeros((2, 3, 4));
    launch!(volume[1, (4, 3, 2)](&mut v, 2))?;
    let mut dv = DeviceNd::to_device(&v)?;
    launch!(volume[1, (4, 3, 2)](&mut dv, 3))?;
    let back: Array3<u32> = dv.to_host()?;
    assert_eq!(back.dim(), (2, 3, 4));
    Ok(())
}

fn main() {}
