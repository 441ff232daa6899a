use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    for x in &*c {
    }
}

fn main() {}
