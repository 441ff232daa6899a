use cudajit::prelude::*;

struct S;

impl S {
    #[kernel]
    fn k(&self, c: &mut [f32]) {
        c[0] = 0.0;
    }
}

fn main() {}
