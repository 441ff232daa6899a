use cudajit::prelude::*;

// The alternative a Rust programmer tries next: a slice of rows. Same message.
#[device]
fn partial_sum(sm: &mut [[f32; 33]], t: usize) -> f32 {
    sm[0][t] + sm[3][t]
}

fn main() {}
