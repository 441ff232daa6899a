use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    if c.len() == 0 {
        panic!("empty");
    }
}

fn main() {}
