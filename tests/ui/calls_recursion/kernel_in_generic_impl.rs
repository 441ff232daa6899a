use cudajit::prelude::*;

struct Wrapper<T>(T);

// The `impl` header holds brackets, a `;` and a closure-like bound: still an `impl`.
impl<T: Fn([u8; 2]) -> u32> Wrapper<T> {
    fn helper(&self) -> u32 {
        (self.0)([1, 2])
    }

    #[kernel]
    fn run(c: &mut [f32]) {
        c[0] = 0.0;
    }
}

fn main() {}
