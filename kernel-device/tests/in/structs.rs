// Structs (issue 9): `#[derive(DeviceCopy)] #[repr(C)]` structs as slice elements
// (field reads and in-place updates, `bodies[i].vel.x *= 0.5`), locals, literals
// (written out of order: temporaries keep Rust's evaluation order), nested structs,
// an array field, a bool field (a byte in memory), device functions taking and
// returning structs; the n-body all-pairs step of the proof.
use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Body {
    pub pos: Vec3,
    pub vel: Vec3,
    pub mass: f32,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Flagged {
    pub samples: [f32; 3],
    pub flag: bool,
    pub tag: u8,
    pub level: u16,
}

#[device]
fn dot(a: Vec3, b: Vec3) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// A struct built from a field-init shorthand and returned by value.
#[device]
fn scaled(v: Vec3, s: f32) -> Vec3 {
    let x = v.x * s;
    Vec3 {
        x,
        y: v.y * s,
        z: v.z * s,
    }
}

/// Field reads and updates through the slice and through a local copy, a struct
/// literal, and device functions taking and returning structs.
#[kernel]
fn integrate(bodies: &mut [Body], dt: f32) {
    let i = grid(1);
    if i < bodies.len() {
        let mut b = bodies[i];
        let step = scaled(b.vel, dt);
        b.pos = Vec3 {
            z: b.pos.z + step.z,
            x: b.pos.x + step.x,
            y: b.pos.y + step.y,
        };
        b.vel.y -= 9.5 * dt;
        bodies[i] = b;
        bodies[i].mass += dot(step, step);
        bodies[i].vel.x *= 0.5;
    }
}

#[device]
fn sub(a: Vec3, b: Vec3) -> Vec3 {
    Vec3 {
        x: a.x - b.x,
        y: a.y - b.y,
        z: a.z - b.z,
    }
}

/// One all-pairs n-body step (the CUDA SDK's `bodySystemCuda` algorithm): each
/// thread sums the softened gravitational pull of every body on its own with `rsqrt`,
/// then integrates its velocity and position.
#[kernel]
fn nbody_step(bodies: &[Body], next: &mut [Body], dt: f32, softening2: f32) {
    let i = grid(1);
    if i < bodies.len() {
        let me = bodies[i];
        let mut acc = Vec3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        };
        for j in 0..bodies.len() {
            let d = sub(bodies[j].pos, me.pos);
            let inv = rsqrt(dot(d, d) + softening2);
            let s = bodies[j].mass * inv * inv * inv;
            acc.x += d.x * s;
            acc.y += d.y * s;
            acc.z += d.z * s;
        }
        let vel = Vec3 {
            x: me.vel.x + acc.x * dt,
            y: me.vel.y + acc.y * dt,
            z: me.vel.z + acc.z * dt,
        };
        next[i] = Body {
            pos: Vec3 {
                x: me.pos.x + vel.x * dt,
                y: me.pos.y + vel.y * dt,
                z: me.pos.z + vel.z * dt,
            },
            vel,
            mass: me.mass,
        };
    }
}

#[kernel]
fn flags(items: &mut [Flagged]) {
    let i = grid(1);
    if i < items.len() {
        let it = items[i];
        if it.flag {
            items[i].samples[1] += it.samples[0];
        }
        items[i].flag = !it.flag;
    }
}

/// A simulation's parameters, passed to the kernel by value as an aggregate kernel
/// parameter (mixed widths, an array, a
/// nested struct and a flag: the kernel parameter is the struct's `ir::layout` bytes).
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct SimParams {
    pub dt: f64,
    pub gravity: Vec3,
    pub damping: f32,
    pub weights: [f32; 3],
    pub steps: u16,
    pub clamp: bool,
    pub _pad: u8,
}

#[kernel]
fn advance(bodies: &mut [Body], params: SimParams, scale: f32) {
    let i = grid(1);
    if i < bodies.len() {
        let dt = params.dt as f32 * scale;
        let mut b = bodies[i];
        for _ in 0..params.steps {
            b.vel.x = (b.vel.x + params.gravity.x * dt) * params.damping;
            b.vel.y = (b.vel.y + params.gravity.y * dt) * params.damping;
            b.vel.z = (b.vel.z + params.gravity.z * dt) * params.damping;
            b.pos.x += b.vel.x * dt * params.weights[0];
            b.pos.y += b.vel.y * dt * params.weights[1];
            b.pos.z += b.vel.z * dt * params.weights[2];
        }
        if params.clamp {
            b.pos.y = b.pos.y.max(0.0);
        }
        bodies[i] = b;
    }
}

/// Arrays of structs as locals: from a list (`[a, b]`) and a repeat (`[b; 4]`), written
/// with a type (`[Body; 4]`), indexed by a loop variable, updated field by field in
/// place and copied whole.
#[kernel]
fn pair_up(bodies: &[Body], next: &mut [Body], out: &mut [f32]) {
    let i = grid(1);
    let n = bodies.len();
    if i < n {
        let a = bodies[i];
        let b = bodies[(i + 1) % n];
        let pair = [a, b];
        let mut ring: [Body; 4] = [a; 4];
        for k in 0..4 {
            ring[k].pos.x += k as f32;
            ring[k].vel = pair[k % 2].vel;
            ring[k].mass *= 0.5;
        }
        ring[3] = pair[1];
        let mut total = 0.0f32;
        for k in 0..4 {
            total += ring[k].pos.x * ring[k].mass + ring[k].vel.y;
        }
        out[i] = total;
        next[i] = ring[(i % 3) + 1];
    }
}
