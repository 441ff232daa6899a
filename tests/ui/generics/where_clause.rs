use cudajit::prelude::*;

// `where T: Float` is a bound like `<T: Float>`; other predicates are not.
#[kernel]
fn k<T>(x: &mut [T])
where
    T: Float,
    f32: Copy,
{
    x[0] = x[1];
}

fn main() {}
