use cudajit::prelude::*;

#[allow(unused_macros)]
macro_rules! twice {
    ($x:expr) => {
        $x * 2.0
    };
}

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = twice!(c[0]);
}

fn main() {}
