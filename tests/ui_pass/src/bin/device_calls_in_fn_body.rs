//! A kernel and the `#[device]` functions it calls, all defined inside a fn body: the
//! callees are found in the enclosing block, as any item would be.
use cudajit::prelude::*;

fn main() {
    #[device]
    fn square(x: f32) -> f32 {
        x * x
    }

    #[device]
    fn twice<T: Num>(x: T) -> T {
        x + x
    }

    #[kernel]
    fn squares(c: &mut [f32]) {
        let i = grid(1);
        if i < c.len() {
            c[i] = twice(square(c[i]));
        }
    }

    let _ = squares::source();
}
