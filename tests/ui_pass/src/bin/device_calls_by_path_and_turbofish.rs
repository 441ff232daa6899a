//! Device functions called through module paths and with explicit generic arguments,
//! from kernels and device functions: each resolves to the `#[device]` fn.
use cudajit::prelude::*;

mod helpers {
    use cudajit::prelude::*;

    #[device]
    pub fn twice(x: f32) -> f32 {
        x * 2.0
    }

    #[device]
    pub fn scaled<T: Float>(x: T, by: T) -> T {
        x * by
    }

    pub mod deeper {
        use cudajit::prelude::*;

        #[device]
        pub fn plus_one(x: f32) -> f32 {
            x + 1.0
        }
    }
}

#[device]
fn cube<T: Float>(x: T) -> T {
    x * x * x
}

#[device]
fn via_paths(x: f32) -> f32 {
    helpers::deeper::plus_one(helpers::twice(x)) + cube::<f32>(x)
}

#[kernel]
fn k(c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = helpers::twice(c[i])
            + helpers::scaled::<f32>(c[i], 3.0)
            + cube::<f32>(c[i])
            + self::helpers::deeper::plus_one(via_paths(c[i]))
            + crate::helpers::scaled(c[i], 0.5);
    }
}

fn main() {
    let names: Vec<&str> = k::source().unit().iter().map(|s| s.name).collect();
    for name in ["twice", "scaled", "cube", "plus_one", "via_paths"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
}
