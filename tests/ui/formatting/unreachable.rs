use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    if c.len() == 0 {
        unreachable!("{0} {2}", c.len(), 1);
    }
}

fn main() {}
