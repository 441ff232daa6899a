//! A user's modules may have any name, those of cudajit's device modules included
//! (`math`, `warp`, `atomic`, `sync`, `nd`, `generic`): a kernel calling
//! `math::norm2(..)` calls the user's `math`, and nothing of cudajit's is ambiguous with it.
use cudajit::prelude::*;

mod math {
    use cudajit::prelude::*;
    #[device]
    pub fn norm2(x: f32, y: f32) -> f32 {
        (x * x + y * y).sqrt()
    }
}
mod warp {
    use cudajit::prelude::*;
    #[device]
    pub fn twice(x: f32) -> f32 {
        x * 2.0
    }
}
mod atomic {
    use cudajit::prelude::*;
    #[device]
    pub fn one() -> u32 {
        1
    }
}
mod sync {
    use cudajit::prelude::*;
    #[device]
    pub fn half(x: f32) -> f32 {
        x * 0.5
    }
}
mod nd {
    use cudajit::prelude::*;
    #[device]
    pub fn first(x: &[f32]) -> f32 {
        x[0]
    }
}
mod generic {
    use cudajit::prelude::*;
    #[device]
    pub fn zero() -> f32 {
        0.0
    }
}

#[kernel]
fn lengths(xs: &[f32], ys: &[f32], out: &mut [f32], hits: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] =
            math::norm2(xs[i], ys[i]) + warp::twice(sync::half(nd::first(xs))) + generic::zero();
        atomic_add(hits, 0, atomic::one());
    }
}

fn main() {}
