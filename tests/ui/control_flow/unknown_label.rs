use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    loop {
        break 'outer;
    }
}

fn main() {}
