use cudajit::prelude::*;

trait Shape {
    #[device]
    fn area(w: f32, h: f32) -> f32 {
        w * h
    }
}

fn main() {}
