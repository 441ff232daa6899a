// Arrays of `#[derive(DeviceCopy)]` structs as locals: list and repeat expressions, a
// written `[Pt; N]` type, indexing, field updates in place, whole copies.
use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Pt {
    x: f32,
    v: f32,
}

#[kernel]
fn k(ps: &mut [Pt]) {
    let i = grid(1);
    if i < ps.len() {
        let pair = [ps[i], Pt { x: 0.0, v: 1.0 }];
        let mut ring: [Pt; 3] = [pair[0]; 3];
        for j in 0..3 {
            ring[j].x += pair[j % 2].v;
        }
        ps[i] = ring[2];
    }
}

fn main() {}
