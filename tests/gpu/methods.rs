//! `#[device]` methods of `#[derive(DeviceCopy)]` structs (issue 9): `self`, `&self`,
//! associated functions, `Self`, called as `a.dot(b)`, `Point3::dot(a, b)`, `Point3::new(..)`,
//! from kernels, device functions and other methods. The same methods run on the host
//! as ordinary Rust methods, and are the reference.

use super::common;
use cudajit::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Point3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

impl Point3 {
    #[device]
    pub fn new(x: f32, y: f32, z: f32) -> Point3 {
        Point3 { x, y, z }
    }

    #[device]
    pub fn dot(self, o: Point3) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[device]
    pub fn len(&self) -> f32 {
        self.dot(*self).sqrt()
    }

    #[device]
    pub fn scaled(self, k: f32) -> Self {
        Self::new(self.x * k, self.y * k, self.z * k)
    }

    #[device]
    pub fn plus(self, o: Point3) -> Point3 {
        Point3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }

    /// Calls other methods (`&self`, `*self`) and a free device function.
    #[device]
    pub fn normalized(&self) -> Point3 {
        let l = self.len();
        if l > 0.0 {
            self.scaled(safe_recip(l))
        } else {
            *self
        }
    }

    /// A host-only method beside the device ones: still an ordinary method.
    pub fn describe(&self) -> String {
        format!("({}, {}, {})", self.x, self.y, self.z)
    }
}

#[device]
fn safe_recip(x: f32) -> f32 {
    if x == 0.0 {
        0.0
    } else {
        1.0 / x
    }
}

/// A device function calling methods.
#[device]
fn mirrored(p: Point3) -> Point3 {
    Point3::new(-p.x, p.y, -p.z).plus(p.scaled(0.5))
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Particle {
    pub pos: Point3,
    pub vel: Point3,
    pub mass: f32,
}

impl Particle {
    /// A method of a struct reaching its field's methods (the field's type named).
    #[device]
    pub fn kinetic(&self) -> f32 {
        let v: Point3 = self.vel;
        0.5 * self.mass * v.dot(v)
    }

    /// `self` by value, updated and returned (what `&mut self` would do). A field's
    /// methods are found through the types the body names (`Point3::scaled`).
    #[device]
    pub fn moved(mut self, dt: f32) -> Particle {
        let step = Point3::scaled(self.vel, dt);
        self.pos = self.pos.plus(step);
        self
    }
}

#[kernel]
fn method_forms(
    a: &[Point3],
    b: &[Point3],
    dots: &mut [f32],
    lens: &mut [f32],
    out: &mut [Point3],
) {
    let i = grid(1);
    if i < a.len() {
        let p: Point3 = a[i];
        dots[i] = p.dot(b[i]) + Point3::dot(b[i], p);
        lens[i] = a[i].len();
        out[i] = Point3::new(p.y, p.z, p.x)
            .scaled(2.0)
            .plus(b[i].normalized())
            .plus(mirrored(p));
    }
}

#[kernel]
fn step_particles(ps: &mut [Particle], energy: &mut [f32], dt: f32) {
    let i = grid(1);
    if i < ps.len() {
        let p: Particle = ps[i];
        energy[i] = p.kinetic();
        ps[i] = p.moved(dt);
    }
}

fn random_point(rng: &mut common::Rng) -> Point3 {
    Point3::new(
        rng.f32_in(-4.0, 4.0),
        rng.f32_in(-4.0, 4.0),
        rng.f32_in(-4.0, 4.0),
    )
}

fn close(g: f32, w: f32) -> bool {
    (g - w).abs() <= 1e-5 * w.abs().max(1.0)
}

#[test]
fn device_methods_match_the_same_methods_on_the_host() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("methods");
    let n = 700 + rng.below(300) as usize;
    let a: Vec<Point3> = (0..n).map(|_| random_point(&mut rng)).collect();
    let mut b: Vec<Point3> = (0..n).map(|_| random_point(&mut rng)).collect();
    // The zero vector takes `normalized`'s other branch.
    b[0] = Point3::new(0.0, 0.0, 0.0);
    let mut dots = vec![f32::NAN; n];
    let mut lens = vec![f32::NAN; n];
    let mut out = vec![Point3::new(f32::NAN, f32::NAN, f32::NAN); n];
    launch!(method_forms[n.div_ceil(128), 128](&a, &b, &mut dots, &mut lens, &mut out)).unwrap();
    for i in 0..n {
        let (p, q) = (a[i], b[i]);
        assert!(close(dots[i], p.dot(q) + Point3::dot(q, p)), "dot {i}");
        assert!(
            close(lens[i], p.len()),
            "len {i}: {} vs {}",
            lens[i],
            p.len()
        );
        let want = Point3::new(p.y, p.z, p.x)
            .scaled(2.0)
            .plus(q.normalized())
            .plus(mirrored(p));
        let got = out[i];
        assert!(
            close(got.x, want.x) && close(got.y, want.y) && close(got.z, want.z),
            "out {i}: {} vs {}",
            got.describe(),
            want.describe()
        );
    }
}

#[test]
fn methods_of_nested_structs_and_by_value_updates() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("particles");
    let n = 500 + rng.below(300) as usize;
    let dt = rng.f32_in(0.001, 0.1);
    let start: Vec<Particle> = (0..n)
        .map(|_| Particle {
            pos: random_point(&mut rng),
            vel: random_point(&mut rng),
            mass: rng.f32_in(0.1, 10.0),
        })
        .collect();
    let mut ps = start.clone();
    let mut energy = vec![f32::NAN; n];
    launch!(step_particles[n.div_ceil(64), 64](&mut ps, &mut energy, dt)).unwrap();
    for i in 0..n {
        assert!(close(energy[i], start[i].kinetic()), "energy {i}");
        let want = start[i].moved(dt);
        let got = ps[i];
        assert!(
            close(got.pos.x, want.pos.x)
                && close(got.pos.y, want.pos.y)
                && close(got.pos.z, want.pos.z),
            "particle {i}: {got:?} vs {want:?}"
        );
        assert_eq!((got.vel, got.mass), (want.vel, want.mass));
    }
}

/// A `#[derive(DeviceCopy)]` enum with `#[device]` methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, DeviceCopy)]
#[repr(u8)]
pub enum Shape {
    Square,
    Circle,
    Triangle,
}

impl Shape {
    #[device]
    pub fn area(self, r: f32) -> f32 {
        match self {
            Shape::Square => r * r,
            Shape::Circle => std::f32::consts::PI * r * r,
            Shape::Triangle => 0.433_012_7 * r * r,
        }
    }

    #[device]
    pub fn next(self) -> Shape {
        match self {
            Shape::Square => Shape::Circle,
            Shape::Circle => Shape::Triangle,
            Shape::Triangle => Shape::Square,
        }
    }
}

#[kernel]
fn shape_areas(shapes: &[Shape], r: &[f32], out: &mut [f32], next: &mut [Shape]) {
    let i = grid(1);
    if i < shapes.len() {
        let s: Shape = shapes[i];
        out[i] = s.area(r[i]) + Shape::area(s.next(), 1.0);
        next[i] = shapes[i].next();
    }
}

#[test]
fn enum_methods_match_the_host() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("shapes");
    let n = 300 + rng.below(200) as usize;
    let all = [Shape::Square, Shape::Circle, Shape::Triangle];
    let shapes: Vec<Shape> = (0..n).map(|_| all[rng.below(3) as usize]).collect();
    let r: Vec<f32> = (0..n).map(|_| rng.f32_in(0.0, 10.0)).collect();
    let mut out = vec![f32::NAN; n];
    let mut next = vec![Shape::Square; n];
    // Poison: each `next` must be written.
    next.iter_mut()
        .enumerate()
        .for_each(|(i, s)| *s = shapes[i]);
    launch!(shape_areas[n.div_ceil(128), 128](&shapes, &r, &mut out, &mut next)).unwrap();
    for i in 0..n {
        let want = shapes[i].area(r[i]) + Shape::area(shapes[i].next(), 1.0);
        assert!(close(out[i], want), "area {i}: {} vs {want}", out[i]);
        assert_eq!(next[i], shapes[i].next(), "next {i}");
    }
}

/// A generator whose methods advance it in place (`&mut self`), as a Rust programmer
/// writes one; the walker holds one as a field.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct XorShift {
    pub state: u32,
}

impl XorShift {
    #[device]
    pub fn next(&mut self) -> u32 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.state = x;
        x
    }

    /// Advances by `n` draws; an early `return` keeps the state.
    #[device]
    pub fn skip(&mut self, n: u32) {
        if n == 0 {
            return;
        }
        for _ in 0..n {
            self.next();
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Walker {
    pub rng: XorShift,
    pub pos: i32,
}

impl Walker {
    /// One step left or right; returns the new position (a `&mut self` method calling
    /// another on a field of `self`).
    #[device]
    pub fn step(&mut self) -> i32 {
        if self.rng.next() & 1 == 0 {
            self.pos -= 1;
        } else {
            self.pos += 1;
        }
        self.pos
    }
}

#[kernel]
fn random_walks(seeds: &[u32], skips: &[u32], ends: &mut [i32], states: &mut [u32]) {
    let i = grid(1);
    if i < seeds.len() {
        let mut rng = XorShift { state: seeds[i] };
        rng.skip(skips[i]);
        let mut walker = Walker { rng, pos: 0 };
        let mut last = 0;
        for _ in 0..16 {
            last = walker.step();
        }
        walker.rng.skip(1);
        ends[i] = last + walker.pos;
        states[i] = walker.rng.state;
    }
}

#[test]
fn mut_self_methods_update_their_receiver_as_on_the_host() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("walkers");
    let n = 500 + rng.below(200) as usize;
    let seeds: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32 | 1).collect();
    let skips: Vec<u32> = (0..n).map(|_| rng.below(4) as u32).collect();
    let mut ends = vec![i32::MIN; n];
    let mut states = vec![0u32; n];
    launch!(random_walks[n.div_ceil(128), 128](&seeds, &skips, &mut ends, &mut states)).unwrap();
    for i in 0..n {
        // The same methods on the host, as ordinary Rust.
        let mut r = XorShift { state: seeds[i] };
        r.skip(skips[i]);
        let mut w = Walker { rng: r, pos: 0 };
        let mut last = 0;
        for _ in 0..16 {
            last = w.step();
        }
        w.rng.skip(1);
        assert_eq!(
            (ends[i], states[i]),
            (last + w.pos, w.rng.state),
            "walker {i}"
        );
    }
}

/// The `&mut self` methods through libnvvm and ptxas (the GPU run executes them; CI has
/// no GPU): a method returning `(Self, R)` is a device function like any other.
#[test]
fn mut_self_methods_compile_to_ptx() {
    let inspection = match cudajit::inspect::inspect(random_walks::source(), "compute_90") {
        Ok(i) => i,
        Err(e) => {
            skip!("no libnvvm ({e})");
            return;
        }
    };
    assert!(inspection.ptx.contains(".visible .entry random_walks"));
    if let Some(resources) = inspection.resources {
        assert_eq!(resources.local_bytes, 0, "the receiver stays in registers");
    }
}

/// A type whose `impl` block is `#[device]`: its methods are registered at link time,
/// so kernels call them where they never name `Charge`.
pub mod charges {
    use cudajit::prelude::*;

    #[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
    #[repr(C)]
    pub struct Charge {
        pub q: f32,
        pub m: f32,
    }

    #[device]
    impl Charge {
        #[device]
        pub fn energy(self) -> f32 {
            square(self.q) / (self.m + 1.0)
        }

        /// Two levels of calls below (`twice`, then `plus`), one below `energy`: the
        /// ahead-of-time unit must order them as the run time's does.
        #[device]
        pub fn doubled(self) -> Charge {
            Charge {
                q: twice(self.q),
                m: self.m,
            }
        }

        /// Host-only: not `#[device]`, so a kernel calling it is an `Err` at launch.
        pub fn describe(self) -> f32 {
            self.q - self.m
        }
    }

    #[device]
    fn square(x: f32) -> f32 {
        x * x
    }

    #[device]
    fn twice(x: f32) -> f32 {
        plus(x, x)
    }

    #[device]
    fn plus(x: f32, y: f32) -> f32 {
        x + y
    }

    /// A field of type `Charge`: a kernel naming only `Cell` reaches `Charge`'s methods.
    #[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
    #[repr(C)]
    pub struct Cell {
        pub charge: Charge,
        pub weight: f32,
    }
}

/// A device fn of another module returning a `Charge`.
pub mod factory {
    use super::charges::Charge;
    use cudajit::prelude::*;

    #[device]
    pub fn make_charge(q: f32, m: f32) -> Charge {
        Charge { q, m }
    }
}

/// `Point3` only in the parameter list (its block is not `#[device]`: the probes of
/// the types a kernel names find its methods).
#[kernel]
fn lens_of_params(ps: &[Point3], out: &mut [f32]) {
    let i = grid(1);
    if i < ps.len() {
        let p = ps[i];
        out[i] = p.len() + p.scaled(2.0).dot(p);
    }
}

/// `Charge` named nowhere: a device fn's result of another module, and a field of `Cell`.
#[kernel]
fn unnamed_receivers(q: &[f32], m: &[f32], cells: &[charges::Cell], out: &mut [f32]) {
    let i = grid(1);
    if i < q.len() {
        let made = factory::make_charge(q[i], m[i]);
        let c = cells[i];
        out[2 * i] = made.doubled().energy();
        out[2 * i + 1] = c.charge.energy() * c.weight;
    }
}

#[kernel]
fn calls_a_host_only_method(cells: &[charges::Cell], out: &mut [f32]) {
    let i = grid(1);
    if i < cells.len() {
        let c = cells[i];
        out[i] = c.charge.describe();
    }
}

#[test]
fn methods_found_without_their_type_named_in_the_kernel() {
    use charges::{Cell, Charge};
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("unnamed_receivers");
    let n = 700 + rng.below(300) as usize;

    let ps: Vec<Point3> = (0..n).map(|_| random_point(&mut rng)).collect();
    let mut lens = vec![f32::NAN; n];
    launch!(lens_of_params[n.div_ceil(128), 128](&ps, &mut lens)).unwrap();
    for i in 0..n {
        let want = ps[i].len() + ps[i].scaled(2.0).dot(ps[i]);
        assert!(close(lens[i], want), "point {i}: {} vs {want}", lens[i]);
    }

    let q: Vec<f32> = (0..n).map(|_| rng.f32_in(-3.0, 3.0)).collect();
    let m: Vec<f32> = (0..n).map(|_| rng.f32_in(0.5, 4.0)).collect();
    let cells: Vec<Cell> = (0..n)
        .map(|_| Cell {
            charge: Charge {
                q: rng.f32_in(-3.0, 3.0),
                m: rng.f32_in(0.5, 4.0),
            },
            weight: rng.f32_in(0.0, 2.0),
        })
        .collect();
    let mut out = vec![f32::NAN; 2 * n];
    launch!(unnamed_receivers[n.div_ceil(128), 128](&q, &m, &cells, &mut out)).unwrap();
    for i in 0..n {
        // The same methods on the host, as ordinary Rust.
        let made = factory::make_charge(q[i], m[i]).doubled().energy();
        let field = cells[i].charge.energy() * cells[i].weight;
        assert_eq!(out[2 * i], made, "made {i}");
        assert_eq!(out[2 * i + 1], field, "field {i}");
    }

    let mut out = vec![f32::NAN; n];
    let err = launch!(calls_a_host_only_method[n.div_ceil(128), 128](&cells, &mut out))
        .expect_err("`describe` is not a #[device] method");
    let text = err.to_string();
    assert!(
        text.contains("no `#[device]` method `describe` found for struct `Charge`"),
        "{text}"
    );
}

/// The ahead-of-time build scans this file and must write the same unit (and so the
/// same IR key) for `unnamed_receivers` as the run time, whose registry holds the
/// `#[device] impl` block's methods: otherwise its embedded PTX would never be used.
#[test]
fn registered_methods_give_the_same_ir_ahead_of_time_and_at_run_time() {
    use kernel_device::offline;
    let found = offline::scan(include_str!("methods.rs"), "tests/gpu/methods.rs").unwrap();
    let index = found
        .iter()
        .position(|f| f.item.sig.ident == "unnamed_receivers")
        .unwrap();
    let scanned = offline::kernel_source(index, &found).unwrap();
    let options = kernel_device::back::nvvm::Options::default();
    let ahead = kernel_device::nvvm_ir_for_kernel(scanned, &options).unwrap();
    let run_time =
        kernel_device::nvvm_ir_for_kernel(unnamed_receivers::source(), &options).unwrap();
    assert_eq!(ahead.nvvm_ir, run_time.nvvm_ir);
    assert!(run_time.nvvm_ir.contains("energy"), "{}", run_time.nvvm_ir);
}

/// `&mut self` methods called on slice elements and on a field of one (`ws[i].step()`,
/// `ws[i].rng.skip(n)`): Rust's way of advancing particles in place, which failed only at
/// launch before.
#[kernel]
fn walk_in_place(ws: &mut [Walker], steps: &[u32], lasts: &mut [i32]) {
    let i = grid(1);
    if i < ws.len() {
        // Names `XorShift`, so the kernel finds its methods (see the README).
        let _start: XorShift = ws[i].rng;
        ws[i].rng.skip(steps[i] % 3);
        let mut last = 0;
        for _ in 0..steps[i] {
            last = ws[i].step();
        }
        lasts[i] = last;
    }
}

#[test]
fn mut_self_methods_update_slice_elements_in_place() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("walk_in_place");
    let n = 300 + rng.below(100) as usize;
    let start: Vec<Walker> = (0..n)
        .map(|_| Walker {
            rng: XorShift {
                state: rng.next_u64() as u32 | 1,
            },
            pos: rng.below(10) as i32,
        })
        .collect();
    let steps: Vec<u32> = (0..n).map(|_| rng.below(20) as u32).collect();
    let mut ws = start.clone();
    let mut lasts = vec![i32::MIN; n];
    launch!(walk_in_place[n.div_ceil(128), 128](&mut ws, &steps, &mut lasts)).unwrap();
    let mut want = start;
    for i in 0..n {
        want[i].rng.skip(steps[i] % 3);
        let mut last = 0;
        for _ in 0..steps[i] {
            last = want[i].step();
        }
        assert_eq!(lasts[i], last, "last step of walker {i}");
    }
    assert_eq!(ws, want);
}
