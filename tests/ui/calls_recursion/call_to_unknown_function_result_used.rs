use cudajit::prelude::*;

// The result's type is never known: still one error, about the call.
#[kernel]
fn k(c: &mut [f32]) {
    let scaled = no_such_function(c[0], 2);
    c[0] = scaled * 2.0;
}

fn main() {}
