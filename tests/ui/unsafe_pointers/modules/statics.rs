//! Loaded by `static_mut_in_other_file.rs`: a `static mut` declared in another file.

pub static mut SCALE: f32 = 2.0;
