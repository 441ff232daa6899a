use cudajit::prelude::*;

#[kernel]
fn k(a: &mut [u32]) {
    let mut n = a[0];
    while let Some(m) = n {
        n = m;
    }
    a[0] = n;
}

fn main() {}
