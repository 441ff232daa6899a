use cudajit::{Swizzle, TensorMapOptions};

fn main() {
    // Interleaved layouts are not offered: a map is always non-interleaved.
    let _options = TensorMapOptions {
        swizzle: Swizzle::B128,
        interleave: 32,
        ..TensorMapOptions::default()
    };
}
