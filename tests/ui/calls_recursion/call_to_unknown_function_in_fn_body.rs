use cudajit::prelude::*;

fn main() {
    #[kernel]
    fn k(c: &mut [f32]) {
        c[0] = nope(c[0]);
    }
}
