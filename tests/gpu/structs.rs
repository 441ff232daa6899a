//! Structs in kernels (issue 9): `#[derive(DeviceCopy)] #[repr(C)]` structs as slice
//! elements, locals, literals, device-function parameters and results, kernel
//! parameters by value, `#[device]` methods; tuples; and the n-body all-pairs proof,
//! each checked against a CPU reference on fresh random inputs with poisoned outputs.

use super::common;
use cudajit::prelude::*;
use cudajit::DeviceCopy as _;

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Body {
    pub pos: Vec3,
    pub vel: Vec3,
    pub mass: f32,
}

/// Every kind of field: scalars of each width, an array, a nested struct, a flag.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Record {
    pub id: u64,
    pub weight: f64,
    pub samples: [f32; 4],
    pub at: Vec3,
    pub count: i32,
    pub level: u16,
    pub flag: bool,
    pub tag: u8,
    /// Explicit: the derive refuses padding, which would be uninitialised bytes.
    pub spare: u32,
}

fn random_vec3(rng: &mut common::Rng, lo: f32, hi: f32) -> Vec3 {
    Vec3 {
        x: rng.f32_in(lo, hi),
        y: rng.f32_in(lo, hi),
        z: rng.f32_in(lo, hi),
    }
}

fn random_record(rng: &mut common::Rng) -> Record {
    Record {
        id: rng.next_u64(),
        weight: rng.f64_in(-1e3, 1e3),
        samples: [
            rng.f32_in(-1.0, 1.0),
            rng.f32_in(-1.0, 1.0),
            rng.f32_in(-1.0, 1.0),
            rng.f32_in(-1.0, 1.0),
        ],
        at: random_vec3(rng, -5.0, 5.0),
        count: rng.next_u64() as i32,
        level: rng.next_u64() as u16,
        flag: rng.below(2) == 1,
        tag: rng.next_u64() as u8,
        spare: rng.next_u64() as u32,
    }
}

#[test]
fn derived_layout_is_rustc_layout() {
    // The derive checks this at compile time; the numbers, spelled out once here.
    assert_eq!(Vec3::LAYOUT.size, 12);
    assert_eq!(Body::LAYOUT.size, std::mem::size_of::<Body>() as u64);
    assert_eq!(Record::LAYOUT.size, std::mem::size_of::<Record>() as u64);
    assert_eq!(Record::LAYOUT.align, 8);
    let ty = Record::device_type();
    assert_eq!(ty.to_string(), "Record");
    let cudajit::__private::Type::Struct(def) = ty else {
        panic!("a derived struct's device type is a struct");
    };
    let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["id", "weight", "samples", "at", "count", "level", "flag", "tag", "spare"]
    );
    assert_eq!(
        def.offsets().unwrap(),
        vec![0, 8, 16, 32, 44, 48, 50, 51, 52]
    );
}

#[test]
fn device_arrays_of_structs_round_trip() {
    let device = require_gpu!();
    let mut rng = common::Rng::fresh("struct round trip");
    let n = 100 + rng.below(100) as usize;
    let records: Vec<Record> = (0..n).map(|_| random_record(&mut rng)).collect();
    let on_device = device.to_device(&records).unwrap();
    assert_eq!(on_device.len(), n);
    let mut back = vec![random_record(&mut rng); n];
    on_device.copy_to_host(&mut back).unwrap();
    assert_eq!(back, records);
    let zeros = device.zeros::<Body>(7).unwrap().to_host().unwrap();
    let zero = Vec3 {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    assert!(zeros.iter().all(|b| *b
        == Body {
            pos: zero,
            vel: zero,
            mass: 0.0
        }));
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

fn integrate_reference(b: &Body, dt: f32) -> Body {
    let step = Vec3 {
        x: b.vel.x * dt,
        y: b.vel.y * dt,
        z: b.vel.z * dt,
    };
    Body {
        pos: Vec3 {
            x: b.pos.x + step.x,
            y: b.pos.y + step.y,
            z: b.pos.z + step.z,
        },
        vel: Vec3 {
            x: b.vel.x * 0.5,
            y: b.vel.y - 9.5 * dt,
            z: b.vel.z,
        },
        mass: b.mass + (step.x * step.x + step.y * step.y + step.z * step.z),
    }
}

fn random_body(rng: &mut common::Rng) -> Body {
    Body {
        pos: random_vec3(rng, -10.0, 10.0),
        vel: random_vec3(rng, -1.0, 1.0),
        mass: rng.f32_in(0.5, 2.0),
    }
}

#[test]
fn struct_fields_update_through_slices_locals_and_device_functions() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("integrate");
    let n = 1000 + rng.below(500) as usize;
    let dt = rng.f32_in(0.001, 0.1);
    let start: Vec<Body> = (0..n).map(|_| random_body(&mut rng)).collect();
    let mut bodies = start.clone();
    launch!(integrate[n.div_ceil(128), 128](&mut bodies, dt)).unwrap();
    for (k, (got, b)) in bodies.iter().zip(&start).enumerate() {
        let want = integrate_reference(b, dt);
        // The same f32 operations in the same order; a GPU may fuse a multiply-add.
        let close = |g: f32, w: f32| (g - w).abs() <= 1e-5 * w.abs().max(1.0);
        let fields = |v: &Body| [v.pos.x, v.pos.y, v.pos.z, v.vel.x, v.vel.y, v.vel.z, v.mass];
        for (g, w) in fields(got).into_iter().zip(fields(&want)) {
            assert!(close(g, w), "body {k}: {got:?} vs {want:?}");
        }
    }
}

/// Every kind of field read from a slice element, through a local copy (an array
/// field indexed in a loop, a nested struct, a flag), and a whole struct written.
#[kernel]
fn summarize(records: &[Record], out: &mut [Record]) {
    let i = grid(1);
    if i < records.len() {
        let r = records[i];
        let mut total = 0.0f32;
        for k in 0..4 {
            total += r.samples[k];
        }
        let at = r.at;
        out[i] = Record {
            id: r.id + 1,
            weight: r.weight * 2.0,
            samples: [total, records[i].samples[3], 0.0, 1.0],
            at: Vec3 {
                x: at.z,
                y: at.x,
                z: at.y,
            },
            count: r.count / 2,
            level: r.level ^ 255,
            flag: !r.flag,
            tag: r.tag / 2,
            spare: r.spare,
        };
        if r.flag {
            out[i].count += 1;
        }
    }
}

#[test]
fn every_field_kind_reads_and_writes_in_place() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("summarize");
    let n = 500 + rng.below(300) as usize;
    let records: Vec<Record> = (0..n).map(|_| random_record(&mut rng)).collect();
    let mut out = vec![random_record(&mut rng); n];
    launch!(summarize[n.div_ceil(64), 64](&records, &mut out)).unwrap();
    for (k, (got, r)) in out.iter().zip(&records).enumerate() {
        let total = r.samples[0] + r.samples[1] + r.samples[2] + r.samples[3];
        let want = Record {
            id: r.id.wrapping_add(1),
            weight: r.weight * 2.0,
            samples: [total, r.samples[3], 0.0, 1.0],
            at: Vec3 {
                x: r.at.z,
                y: r.at.x,
                z: r.at.y,
            },
            count: r.count / 2 + i32::from(r.flag),
            level: r.level ^ 255,
            flag: !r.flag,
            tag: r.tag / 2,
            spare: r.spare,
        };
        assert_eq!(*got, want, "record {k}");
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

/// The same step in f64 on the host.
fn nbody_reference(bodies: &[Body], dt: f64, softening2: f64) -> Vec<[f64; 6]> {
    let f = |v: Vec3| [v.x as f64, v.y as f64, v.z as f64];
    bodies
        .iter()
        .map(|me| {
            let p = f(me.pos);
            let mut acc = [0.0f64; 3];
            for other in bodies {
                let q = f(other.pos);
                let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
                let inv = 1.0 / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening2).sqrt();
                let s = other.mass as f64 * inv * inv * inv;
                for k in 0..3 {
                    acc[k] += d[k] * s;
                }
            }
            let v = f(me.vel);
            let vel = [v[0] + acc[0] * dt, v[1] + acc[1] * dt, v[2] + acc[2] * dt];
            [
                p[0] + vel[0] * dt,
                p[1] + vel[1] * dt,
                p[2] + vel[2] * dt,
                vel[0],
                vel[1],
                vel[2],
            ]
        })
        .collect()
}

#[test]
fn nbody_all_pairs_matches_f64_reference() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("nbody");
    let n = 384 + rng.below(256) as usize;
    let (dt, softening2) = (0.01f32, 0.05f32);
    let bodies: Vec<Body> = (0..n).map(|_| random_body(&mut rng)).collect();
    let poison = Vec3 {
        x: f32::NAN,
        y: f32::NAN,
        z: f32::NAN,
    };
    let mut next = vec![
        Body {
            pos: poison,
            vel: poison,
            mass: f32::NAN,
        };
        n
    ];
    launch!(nbody_step[n.div_ceil(128), 128](&bodies, &mut next, dt, softening2)).unwrap();
    let want = nbody_reference(&bodies, dt as f64, softening2 as f64);
    for (k, (got, w)) in next.iter().zip(&want).enumerate() {
        let g = [
            got.pos.x, got.pos.y, got.pos.z, got.vel.x, got.vel.y, got.vel.z,
        ];
        // f32 sums of n terms with rsqrt (2 ulp): relative to the largest term.
        for (a, b) in g.iter().zip(w) {
            let tol = 2e-4 * b.abs().max(1.0);
            assert!((*a as f64 - b).abs() <= tol, "body {k}: {g:?} vs {w:?}");
        }
        assert_eq!(got.mass, bodies[k].mass, "body {k}");
    }
}

/// A tuple result, destructured by the caller.
#[device]
fn sincos2(x: f32) -> (f32, f32) {
    (x.sin(), x.cos())
}

/// Tuples as device-function parameters and result.
#[device]
fn rotate(p: (f32, f32), sc: (f32, f32)) -> (f32, f32) {
    let (s, c) = sc;
    (p.0 * c - p.1 * s, p.0 * s + p.1 * c)
}

#[kernel]
fn rotate_points(xs: &mut [f32], ys: &mut [f32], angle: f32) {
    let i = grid(1);
    if i < xs.len() {
        let (s, c) = sincos2(angle);
        let r = rotate((xs[i], ys[i]), (s, c));
        xs[i] = r.0;
        ys[i] = r.1;
    }
}

#[test]
fn tuples_pass_to_and_return_from_device_functions() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("rotate");
    let n = 700 + rng.below(300) as usize;
    let angle = rng.f32_in(-3.0, 3.0);
    let (x0, y0) = (rng.vec_f32(n, -5.0, 5.0), rng.vec_f32(n, -5.0, 5.0));
    let (mut xs, mut ys) = (x0.clone(), y0.clone());
    launch!(rotate_points[n.div_ceil(128), 128](&mut xs, &mut ys, angle)).unwrap();
    let (s, c) = (angle as f64).sin_cos();
    let wx: Vec<f64> = x0
        .iter()
        .zip(&y0)
        .map(|(&x, &y)| x as f64 * c - y as f64 * s)
        .collect();
    let wy: Vec<f64> = x0
        .iter()
        .zip(&y0)
        .map(|(&x, &y)| x as f64 * s + y as f64 * c)
        .collect();
    common::compare("rotate x", &xs, &wx, 1e-5, 1e-5).unwrap();
    common::compare("rotate y", &ys, &wy, 1e-5, 1e-5).unwrap();
}

/// A simulation's parameters, passed to the kernel by value (mixed widths, an array, a
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

fn advance_reference(mut b: Body, p: &SimParams, scale: f32) -> Body {
    let dt = p.dt as f32 * scale;
    for _ in 0..p.steps {
        b.vel.x = (b.vel.x + p.gravity.x * dt) * p.damping;
        b.vel.y = (b.vel.y + p.gravity.y * dt) * p.damping;
        b.vel.z = (b.vel.z + p.gravity.z * dt) * p.damping;
        b.pos.x += b.vel.x * dt * p.weights[0];
        b.pos.y += b.vel.y * dt * p.weights[1];
        b.pos.z += b.vel.z * dt * p.weights[2];
    }
    if p.clamp {
        b.pos.y = b.pos.y.max(0.0);
    }
    b
}

#[test]
fn structs_pass_to_kernels_by_value() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("structs_by_value");
    let n = 513usize;
    let input: Vec<Body> = (0..n).map(|_| random_body(&mut rng)).collect();
    for clamp in [false, true] {
        let params = SimParams {
            dt: rng.f64_in(1e-3, 1e-2),
            gravity: random_vec3(&mut rng, -10.0, 10.0),
            damping: rng.f32_in(0.9, 1.0),
            weights: [
                rng.f32_in(0.5, 1.5),
                rng.f32_in(0.5, 1.5),
                rng.f32_in(0.5, 1.5),
            ],
            steps: 1 + rng.below(6) as u16,
            clamp,
            _pad: 0,
        };
        let scale = rng.f32_in(0.5, 2.0);
        let mut bodies = input.clone();
        launch!(advance[n.div_ceil(128), 128](&mut bodies, params, scale)).unwrap();
        for (i, (got, b)) in bodies.iter().zip(&input).enumerate() {
            // The same f32 operations in the same order: bit-identical.
            assert_eq!(
                *got,
                advance_reference(*b, &params, scale),
                "body {i}, {params:?}"
            );
        }
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

fn pair_up_reference(bodies: &[Body], i: usize) -> (f32, Body) {
    let n = bodies.len();
    let (a, b) = (bodies[i], bodies[(i + 1) % n]);
    let pair = [a, b];
    let mut ring = [a; 4];
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
    (total, ring[(i % 3) + 1])
}

#[test]
fn arrays_of_structs_as_locals() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("arrays_of_structs");
    let n = 300usize;
    let input: Vec<Body> = (0..n).map(|_| random_body(&mut rng)).collect();
    let mut next = vec![random_body(&mut rng); n];
    let mut out = vec![f32::NAN; n];
    launch!(pair_up[n.div_ceil(64), 64](&input, &mut next, &mut out)).unwrap();
    for i in 0..n {
        let (total, body) = pair_up_reference(&input, i);
        assert_eq!(out[i].to_bits(), total.to_bits(), "total of {i}");
        assert_eq!(next[i], body, "body {i}");
    }
}
