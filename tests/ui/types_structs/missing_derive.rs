use cudajit::prelude::*;

#[derive(Clone, Copy)]
#[repr(C)]
struct Particle {
    x: f32,
    v: f32,
}

#[kernel]
fn k(p: &mut [Particle]) {
    let i = grid(1);
    if i < p.len() {
        p[i].x += p[i].v;
    }
}

fn main() {}
