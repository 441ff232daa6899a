use cudajit::prelude::*;

trait Kernels {
    #[kernel]
    fn run(c: &mut [f32]) {
        c[0] = 0.0;
    }
}

fn main() {}
