use cudajit::prelude::*;

struct S;

impl S {
    #[kernel]
    fn run(c: &mut [f32]) {
        c[0] = 0.0;
    }
}

fn main() {}
