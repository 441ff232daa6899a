//! README "The kernel subset": `#[derive(DeviceCopy)] #[repr(C)]` structs as slice
//! elements, locals, literals, device-function parameters and results, fields read
//! and updated in place; tuples through device functions. One kernel per construct.
use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Body {
    pos: Vec3,
    vel: Vec3,
    samples: [f32; 4],
    mass: f32,
}

#[device]
fn scaled(v: Vec3, s: f32) -> Vec3 {
    Vec3 {
        x: v.x * s,
        y: v.y * s,
        z: v.z * s,
    }
}

#[device]
fn split(x: f32) -> (f32, f32) {
    (x.floor(), x.fract())
}

#[kernel]
fn field_update_in_place(bodies: &mut [Body], dt: f32) {
    let i = grid(1);
    if i < bodies.len() {
        bodies[i].vel.x += dt;
        bodies[i].samples[0] = bodies[i].mass;
    }
}

#[kernel]
fn local_copy_and_literal(bodies: &mut [Body], dt: f32) {
    let i = grid(1);
    if i < bodies.len() {
        let mut b = bodies[i];
        let step = scaled(b.vel, dt);
        b.pos = Vec3 {
            x: b.pos.x + step.x,
            y: b.pos.y + step.y,
            z: b.pos.z + step.z,
        };
        bodies[i] = b;
    }
}

#[kernel]
fn tuples_through_device_functions(a: &mut [f32]) {
    let i = grid(1);
    if i < a.len() {
        let (whole, part) = split(a[i]);
        a[i] = whole - part;
    }
}

fn main() {}
