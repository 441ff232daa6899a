//! A kernel inside a fn body calling `#[device]` functions defined in another file, by
//! bare name (through a module-level glob import), by path and with a turbofish: each
//! call is routed (see `kernel-macros/src/routed_callees.rs`) and finds the function.
use cudajit::prelude::*;

#[path = "modules/device_helpers.rs"]
mod helpers;
use helpers::*;

fn main() {
    #[kernel]
    fn k(c: &mut [f32]) {
        let i = grid(1);
        if i < c.len() {
            c[i] = cube(c[i]) + helpers::scaled(c[i], 3.0) + halve::<f32>(c[i]);
        }
    }

    let names: Vec<&str> = k::source().unit().iter().map(|s| s.name).collect();
    for name in ["cube", "scaled", "halve"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
}
