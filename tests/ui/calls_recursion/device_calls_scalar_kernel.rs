use cudajit::prelude::*;

#[kernel]
fn spin(n: u32) {
    let mut i = 0u32;
    while i < n {
        i += 1;
    }
}

#[device]
fn helper(n: u32) -> u32 {
    spin(n);
    n
}

fn main() {}
