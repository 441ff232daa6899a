use cudajit::prelude::*;

#[kernel]
fn k(flags: &[bool], out: &mut [bool]) {
    let v = flags.load_vec::<8>(0);
    out[0] = v[0];
}

fn main() {}
