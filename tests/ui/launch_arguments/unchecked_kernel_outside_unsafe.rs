//! A kernel compiled with `boundscheck = false` can write outside its buffers: launching
//! it is an `unsafe` promise, so `launch!` of it outside an `unsafe {}` block fails.
use cudajit::prelude::*;

#[kernel(boundscheck = false)]
fn scatter(out: &mut [u32], at: usize) {
    out[at] = 1;
}

fn main() -> cudajit::Result<()> {
    let mut out = vec![0u32; 4];
    launch!(scatter[1, 1](&mut out, 9))?;
    // Inside `unsafe {}` the same launch compiles (the caller promises the index).
    unsafe { launch!(scatter[1, 1](&mut out, 2)) }?;
    Ok(())
}
