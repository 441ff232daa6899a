use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let x = loop {
        if c.len() > 2 {
            break 1.0f32;
        }
        break 2u32;
    };
    c[0] = 0.0;
}

fn main() {}
