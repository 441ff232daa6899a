//! The comparison behind issue 7's and issue 8's differential tests: random programs of
//! the kernel subset (written by `cargo xtask gen-fidelity` / `cargo xtask fuzz`) run as
//! kernels, one input tuple per thread, on random inputs that include every type's edge
//! values, and are compared with the same `#[device]` functions as rustc compiled them
//! for the host:
//! - integers and bools bit for bit; floats bit for bit, NaN against NaN whatever the
//!   payload (Rust does not specify NaN payloads); programs ending in a libdevice
//!   transcendental within its documented ulps plus one for the host's libm;
//! - panics: an input that panics on the host must panic on the device (its thread
//!   never sets `done`), and the panic the launch reports must carry the host's message.
//!
//! Rust's release semantics are the reference (overflow wraps): the host side must be
//! built without overflow checks ([`overflow_checks_off`]).

use std::cell::Cell;
use std::fmt::Debug;

use super::common::Rng;

/// How a program's result is compared (the generator decides per program).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tolerance {
    Exact,
    Ulps(u32),
}

/// One program's result: inputs compared, and how many of them panicked (on both
/// sides), or the mismatches.
pub type Outcome = Result<(usize, usize), String>;

/// A scalar the programs take and return.
pub trait Value: Copy + Debug + 'static {
    /// What an output holds before the kernel writes it.
    const POISON: Self;
    /// Edge values every run includes.
    fn edges() -> Vec<Self>;
    fn random(rng: &mut Rng) -> Self;
    fn same(self, other: Self, tolerance: Tolerance) -> bool;
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            const POISON: Self = <$t>::MAX ^ 0x5a;
            fn edges() -> Vec<Self> {
                let mut v = vec![0, 1, 2, 3, 7, 8, 10, <$t>::MAX, <$t>::MIN, <$t>::MAX - 1, <$t>::MIN + 1];
                v.extend([<$t>::MAX / 2, <$t>::MAX / 2 + 1, 0x7fu8 as $t, 0x80u8 as $t, 0xffu8 as $t]);
                // -1 and the other negatives of small magnitude for signed types.
                v.extend([(0 as $t).wrapping_sub(1), (0 as $t).wrapping_sub(2), (0 as $t).wrapping_sub(11)]);
                v
            }
            fn random(rng: &mut Rng) -> Self {
                match rng.below(4) {
                    0 => rng.below(20) as $t,
                    1 => (0 as $t).wrapping_sub(rng.below(20) as $t),
                    _ => rng.next_u64() as $t,
                }
            }
            fn same(self, other: Self, _: Tolerance) -> bool {
                self == other
            }
        }
    )*};
}
int_value!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl Value for bool {
    const POISON: Self = false;
    fn edges() -> Vec<Self> {
        vec![false, true]
    }
    fn random(rng: &mut Rng) -> Self {
        rng.below(2) == 1
    }
    fn same(self, other: Self, _: Tolerance) -> bool {
        self == other
    }
}

/// Float edges: zeros, the saturation bounds of every integer type (and their
/// neighbours), rounding ties, tiny, subnormal, huge, infinities and NaN.
const FLOAT_EDGES: &[f64] = &[
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.0,
    -1.0,
    1.5,
    2.5,
    -2.5,
    0.1,
    3.0,
    127.0,
    127.5,
    128.0,
    -128.0,
    -128.5,
    -129.0,
    255.0,
    255.5,
    256.0,
    32767.0,
    32767.5,
    32768.0,
    -32768.0,
    -32769.0,
    65535.0,
    65535.5,
    65536.0,
    2147483520.0,
    2147483647.0,
    2147483648.0,
    -2147483648.0,
    -2147483904.0,
    4294967040.0,
    4294967295.0,
    4294967296.0,
    9.2233720368547758e18,
    -9.2233720368547758e18,
    1.8446744073709552e19,
    // Where exp/exp2/sinh/cosh overflow in f32 and f64 (issue 22: an f32 `sinh` of
    // about -96 was the one float result the H200 and rustc disagreed on).
    66.0,
    -66.0,
    88.72,
    89.41,
    89.42,
    -89.5,
    96.0,
    -96.0,
    128.5,
    709.78,
    710.5,
    -710.5,
    1e-8,
    1e-40,
    1e-310,
    1e-30,
    1e30,
    3.4e38,
    1e300,
    -1e300,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

macro_rules! float_value {
    ($t:ty, $bits:ty, $signed:ty) => {
        impl Value for $t {
            const POISON: Self = <$t>::from_bits(0x7fc0_0000_dead_beef_u64 as $bits);
            fn edges() -> Vec<Self> {
                let mut v: Vec<$t> = FLOAT_EDGES.iter().map(|&x| x as $t).collect();
                v.extend([
                    <$t>::MAX,
                    <$t>::MIN,
                    <$t>::MIN_POSITIVE,
                    -<$t>::MIN_POSITIVE,
                    <$t>::EPSILON,
                ]);
                v.push(<$t>::from_bits(1)); // the smallest subnormal
                v.push(-<$t>::from_bits(1));
                v.push(<$t>::from_bits(<$t>::MIN_POSITIVE.to_bits() - 1)); // the largest
                v.push(-<$t>::NAN); // a NaN with the sign bit set
                v
            }
            fn random(rng: &mut Rng) -> Self {
                match rng.below(4) {
                    0 => <$t>::from_bits(rng.next_u64() as $bits),
                    1 => (rng.f64_in(-300.0, 300.0) as $t).round() / 4.0,
                    _ => rng.f64_in(-1e4, 1e4) as $t,
                }
            }
            fn same(self, other: Self, tolerance: Tolerance) -> bool {
                if self.is_nan() || other.is_nan() {
                    return self.is_nan() && other.is_nan();
                }
                if self.to_bits() == other.to_bits() {
                    return true;
                }
                match tolerance {
                    Tolerance::Exact => false,
                    Tolerance::Ulps(n) => {
                        // Ordered keys: adjacent floats differ by one, and ±0 are equal.
                        let key = |x: $t| {
                            let b = x.to_bits() as $signed;
                            (if b < 0 { <$signed>::MIN - b } else { b }) as i128
                        };
                        (key(self) - key(other)).unsigned_abs() <= n as u128
                    }
                }
            }
        }
    };
}
float_value!(f32, u32, i32);
float_value!(f64, u64, i64);

/// Per-program inputs and the comparison.
pub struct Harness {
    pub n: usize,
    pub block: usize,
    /// The table every program may index (`tab[(e) % 10]`: 8 and 9 are out of bounds).
    pub tab: Vec<i64>,
    /// What ran the kernels, as the mismatch reports name it ("GPU", "simulator").
    pub backend: &'static str,
    seed: u64,
    program: usize,
}
thread_local! {
    /// Set while the host reference runs: its panics are expected, not reported.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

pub fn install_quiet_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !QUIET.with(Cell::get) {
            default(info);
        }
    }));
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic>".into()
    }
}

impl Harness {
    pub fn new(backend: &'static str, seed: u64, program: usize) -> Harness {
        let mut rng = Rng::new(seed ^ (program as u64).wrapping_mul(0x9E37_79B9));
        let tab = (0..8).map(|_| i64::random(&mut rng)).collect::<Vec<i64>>();
        Harness {
            n: 512,
            block: 64,
            tab,
            backend,
            seed,
            program,
        }
    }

    /// Parameter `param`'s inputs: every edge value of its type (shifted per
    /// parameter, so edges meet different partners), then random values.
    pub fn inputs<T: Value>(&self, param: usize) -> Vec<T> {
        let mut rng = Rng::new(
            self.seed ^ (self.program as u64).wrapping_mul(0x9E37_79B9) ^ (param as u64 + 1) << 40,
        );
        let edges = T::edges();
        (0..self.n)
            .map(|j| {
                if j < 2 * edges.len() && rng.below(3) != 0 {
                    edges[(j * (param + 1) + param) % edges.len()]
                } else if rng.below(4) == 0 {
                    edges[rng.below(edges.len() as u64) as usize]
                } else {
                    T::random(&mut rng)
                }
            })
            .collect()
    }

    /// Compares the kernel's results (`out`, `done`, the launch's result) with the
    /// host's (`host(j)` for input `j`, run under `catch_unwind`).
    #[allow(clippy::too_many_arguments)]
    pub fn check<R: Value>(
        &self,
        name: &str,
        tolerance: Tolerance,
        launched: cudajit::Result<()>,
        out: &[R],
        done: &[u32],
        host: impl Fn(usize) -> R,
        show: impl Fn(usize) -> String,
    ) -> Outcome {
        let device_panic = match launched {
            Ok(()) => None,
            Err(cudajit::Error::KernelPanic {
                message,
                block,
                thread,
                ..
            }) => Some((block as usize * self.block + thread as usize, message)),
            Err(e) => return Err(format!("{name}: launch failed: {e}")),
        };
        let mut problems = Vec::new();
        let mut panicked = 0;
        for j in 0..self.n {
            QUIET.with(|q| q.set(true));
            let expected = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| host(j)));
            QUIET.with(|q| q.set(false));
            let expected = expected.map_err(|p| panic_message(&*p));
            let got = (done[j] == 1).then_some(out[j]);
            match (&expected, got) {
                (Ok(want), Some(got)) if got.same(*want, tolerance) => {}
                (Err(_), None) => panicked += 1,
                (Ok(want), Some(got)) => problems.push(format!(
                    "{name}{}: {} {got:?}, rustc {want:?}",
                    show(j),
                    self.backend
                )),
                (Ok(want), None) => problems.push(format!(
                    "{name}{}: {} panicked (or did not run), rustc returned {want:?}",
                    show(j),
                    self.backend
                )),
                (Err(message), Some(got)) => problems.push(format!(
                    "{name}{}: {} returned {got:?}, rustc panicked: {message}",
                    show(j),
                    self.backend
                )),
            }
        }
        if let Some((j, message)) = &device_panic {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                QUIET.with(|q| q.set(true));
                host(*j)
            })) {
                Err(p) if panic_message(&*p) == *message => {}
                Err(p) => problems.push(format!(
                    "{name}{}: {} panicked with {message:?}, rustc with {:?}",
                    show(*j),
                    self.backend,
                    panic_message(&*p)
                )),
                Ok(_) => problems.push(format!(
                    "{name}{}: {} reported a panic ({message}) for an input rustc returns for",
                    show(*j),
                    self.backend
                )),
            }
            QUIET.with(|q| q.set(false));
        } else if panicked > 0 {
            problems.push(format!(
                "{name}: {panicked} inputs panicked on both sides but the launch reported no panic"
            ));
        }
        if problems.is_empty() {
            Ok((self.n, panicked))
        } else {
            let total = problems.len();
            problems.truncate(5);
            Err(format!(
                "{} ({total} mismatching inputs)",
                problems.join("\n  ")
            ))
        }
    }
}

/// Whether this build wraps on integer overflow as kernels do (release semantics), so
/// rustc's results are the reference. Debug builds and the `fuzz` profile differ here.
pub fn overflow_checks_off() -> bool {
    let max = std::hint::black_box(u8::MAX);
    QUIET.with(|q| q.set(true));
    let wrapped = std::panic::catch_unwind(|| max + std::hint::black_box(1)).is_ok();
    QUIET.with(|q| q.set(false));
    wrapped
}

/// What one pass over a list of programs found.
pub struct Summary {
    pub programs: usize,
    pub inputs: usize,
    /// Programs that panicked on some inputs, on both sides.
    pub panicking: usize,
    pub failures: Vec<String>,
}

/// Runs every program (or only `only`) with inputs from `seed` on `backend`.
pub fn run_programs(
    programs: &[(&str, fn(&Harness) -> Outcome)],
    backend: &'static str,
    seed: u64,
    only: Option<&str>,
) -> Summary {
    let mut summary = Summary {
        programs: 0,
        inputs: 0,
        panicking: 0,
        failures: Vec::new(),
    };
    for (index, (name, run)) in programs.iter().enumerate() {
        if only.is_some_and(|o| o != *name) {
            continue;
        }
        // The program's number in its generator stream, so that a run compiled in pieces
        // gives each program the inputs it gets in one piece.
        let number = name
            .strip_prefix("prog")
            .and_then(|n| n.parse().ok())
            .unwrap_or(index);
        let harness = Harness::new(backend, seed, number);
        summary.programs += 1;
        match run(&harness) {
            Ok((n, panicked)) => {
                summary.inputs += n;
                summary.panicking += (panicked > 0) as usize;
            }
            Err(e) => summary.failures.push(e),
        }
    }
    summary
}
