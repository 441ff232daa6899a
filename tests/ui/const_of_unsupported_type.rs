use cudajit::prelude::*;

const GREETING: &str = "hello";

#[kernel]
fn k(out: &mut [usize]) {
    out[0] = GREETING.len();
}

fn main() {}
