use cudajit::prelude::*;

struct S;

impl S {
    #[device]
    fn scale(x: f32) -> f32 {
        x * 2.0
    }
}

fn main() {}
