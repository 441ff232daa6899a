use cudajit::prelude::*;

// Without a slice parameter the call cannot be tied to cudajit's message: rustc's
// "expected function" remains (see `call_guard` in kernel-macros).
#[kernel]
fn spin(n: u32) {
    let mut i = 0u32;
    while i < n {
        i += 1;
    }
}

fn main() {
    spin(3);
}
