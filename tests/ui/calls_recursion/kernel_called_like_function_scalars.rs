use cudajit::prelude::*;

#[kernel]
fn spin(n: u32, scale: f32) {
    let mut i = 0u32;
    while (i as f32) < n as f32 * scale {
        i += 1;
    }
}

fn main() {
    spin(3, 1.0);
}
