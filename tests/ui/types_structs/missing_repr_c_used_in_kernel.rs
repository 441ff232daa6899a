use cudajit::prelude::*;

// One mistake (no `#[repr(C)]`), one error: the kernels using the struct are not
// reported again.
#[derive(Clone, Copy, DeviceCopy)]
struct Particle {
    x: f32,
    v: f32,
}

#[kernel]
fn advance(p: &mut [Particle], dt: f32) {
    let i = grid(1);
    if i < p.len() {
        p[i].x += p[i].v * dt;
    }
}

#[kernel]
fn one(p: Particle, out: &mut [f32]) {
    out[0] = p.x;
}

fn main() {
    let mut ps = vec![Particle { x: 0.0, v: 1.0 }; 4];
    let mut out = vec![0.0f32; 1];
    launch!(advance[1, 4](&mut ps, 0.5)).unwrap();
    launch!(one[1, 1](ps[0], &mut out)).unwrap();
}
