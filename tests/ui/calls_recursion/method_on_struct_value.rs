use cudajit::prelude::*;

struct S;

impl S {
    fn get(&self) -> f32 {
        1.0
    }
}

#[kernel]
fn k(c: &mut [f32]) {
    let s = S;
    c[0] = s.get();
}

fn main() {}
