//! The subset's bindings, operators and casts compile (README: the kernel subset).
use cudajit::prelude::*;

#[kernel]
fn bindings(out: &mut [i32], f: &mut [f32], flags: &mut [bool], n: u32) {
    let i = grid(1);
    let acc: i32 = 0;
    let acc2 = acc;
    let mut acc = acc2 + acc;
    let (x, y) = (3i32, 4i32);
    let t = (1.5f32, 2u8);
    acc += x * y - (x / 2) % 3;
    acc -= 1;
    acc *= 2;
    acc <<= 1;
    acc >>= 1;
    acc |= 0b100;
    acc &= !0;
    acc ^= 1;
    let shifted = (n >> 2) << 1;
    let logic = x < y && (y >= 0 || x != 0);
    flags[0] = logic & !false;
    let c = -(t.0 as f64) as f32 + t.1 as f32 + shifted as f32 + 300.7f32 as u8 as f32;
    f[0] = c;
    out[i] = acc;
}

fn main() {}
