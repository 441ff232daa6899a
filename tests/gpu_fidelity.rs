//! Issue 7's proof on a GPU: random programs of the kernel subset
//! (`gpu/fidelity/programs.rs`, written by `cargo xtask gen-fidelity --seed S --count N`)
//! each run as a kernel, one input tuple per thread, on random inputs that include every
//! type's edge values, and are compared with the same `#[device]` functions as rustc
//! compiled them for the host:
//! - integers and bools bit for bit; floats bit for bit, NaN against NaN whatever the
//!   payload (Rust does not specify NaN payloads); programs ending in a libdevice
//!   transcendental within its documented ulps plus one for the host's libm;
//! - panics: an input that panics on the host must panic on the device (its thread
//!   never sets `done`), and the panic the launch reports must carry the host's message.
//!
//! Rust's release semantics are the reference (overflow wraps), so the comparison runs
//! only in a release build (the GPU bundle); a debug build with a GPU says it skipped.
//! Without a GPU it skips too; CI compiles the programs through libnvvm and ptxas in
//! kernel-device's `fidelity_programs` test instead.
//!
//! `CUDAJIT_SEED` replays the inputs; `CUDAJIT_FIDELITY_ONLY=prog17` runs one program.

use std::cell::Cell;
use std::fmt::Debug;

#[path = "../examples/common/mod.rs"]
mod common;

// Generated; `cargo xtask gen-fidelity` output is committed as written.
#[rustfmt::skip]
#[path = "gpu/fidelity/programs.rs"]
mod programs;

use common::Rng;

/// Says why a test did not run, on stderr written directly so that the test
/// harness's output capture does not hide the reason.
macro_rules! skip {
    ($($reason:tt)*) => {{
        use std::io::Write as _;
        let test = std::thread::current().name().unwrap_or("test").to_string();
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", format_args!($($reason)*));
    }};
}

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
                v.extend([<$t>::MAX, <$t>::MIN, <$t>::MIN_POSITIVE, <$t>::EPSILON]);
                v.push(<$t>::from_bits(1)); // the smallest subnormal
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
    seed: u64,
    program: usize,
}

thread_local! {
    /// Set while the host reference runs: its panics are expected, not reported.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

fn install_quiet_panic_hook() {
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
    fn new(seed: u64, program: usize) -> Harness {
        let mut rng = Rng::new(seed ^ (program as u64).wrapping_mul(0x9E37_79B9));
        let tab = (0..8).map(|_| i64::random(&mut rng)).collect::<Vec<i64>>();
        Harness {
            n: 512,
            block: 64,
            tab,
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
                (Ok(want), Some(got)) => {
                    problems.push(format!("{name}{}: GPU {got:?}, rustc {want:?}", show(j)))
                }
                (Ok(want), None) => problems.push(format!(
                    "{name}{}: GPU panicked (or did not run), rustc returned {want:?}",
                    show(j)
                )),
                (Err(message), Some(got)) => problems.push(format!(
                    "{name}{}: GPU returned {got:?}, rustc panicked: {message}",
                    show(j)
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
                    "{name}{}: GPU panicked with {message:?}, rustc with {:?}",
                    show(*j),
                    panic_message(&*p)
                )),
                Ok(_) => problems.push(format!(
                    "{name}{}: GPU reported a panic ({message}) for an input rustc returns for",
                    show(*j)
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

#[test]
fn generated_programs_match_rustc() {
    if let Err(e) = cudajit::Device::default() {
        skip!("no GPU ({e})");
        return;
    }
    if cfg!(debug_assertions) {
        skip!("build in release (the GPU bundle does): rustc's reference must wrap on overflow as kernels do");
        return;
    }
    install_quiet_panic_hook();
    let seed = std::env::var("CUDAJIT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| Rng::fresh("fidelity inputs").next_u64());
    let only = std::env::var("CUDAJIT_FIDELITY_ONLY").ok();
    let (mut programs, mut inputs, mut panicking) = (0, 0, 0);
    let mut failures = Vec::new();
    for (index, (name, run)) in programs::PROGRAMS.iter().enumerate() {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        let harness = Harness::new(seed, index);
        programs += 1;
        match run(&harness) {
            Ok((n, panicked)) => {
                inputs += n;
                panicking += (panicked > 0) as usize;
            }
            Err(e) => failures.push(e),
        }
    }
    // Straight to stderr (as `skip!` does), so the summary shows in the bundle's logs
    // even when the test passes and its captured output is dropped.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "fidelity: {programs} programs (generator seed {}), inputs seed {seed} (replay with \
         CUDAJIT_SEED={seed}): {inputs} inputs compared, {panicking} programs panicked on some \
         inputs on both sides, {} programs mismatched",
        programs::SEED,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {programs} programs differ from rustc (inputs seed {seed}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The comparison itself, without a GPU: a wrong value, a missing panic, an extra
/// panic and a different panic message are each reported; agreement is not.
#[test]
fn check_reports_every_kind_of_mismatch() {
    install_quiet_panic_hook();
    let mut h = Harness::new(1, 0);
    h.n = 4;
    let host = |j: usize| -> i32 {
        if j == 3 {
            panic!("attempt to divide by zero");
        }
        j as i32
    };
    let show = |j: usize| format!("({j})");
    let panic_at = |j: u32, message: &str| -> cudajit::Result<()> {
        Err(cudajit::Error::KernelPanic {
            kernel: "k".into(),
            file: "f.rs".into(),
            line: 1,
            column: 1,
            message: message.into(),
            block: 0,
            thread: j,
        })
    };
    let out = [0, 1, 2, 0];
    let agree = h.check(
        "p",
        Tolerance::Exact,
        panic_at(3, "attempt to divide by zero"),
        &out,
        &[1, 1, 1, 0],
        host,
        show,
    );
    assert_eq!(agree, Ok((4, 1)));
    let wrong_value = h.check(
        "p",
        Tolerance::Exact,
        panic_at(3, "attempt to divide by zero"),
        &[0, 5, 2, 0],
        &[1, 1, 1, 0],
        host,
        show,
    );
    assert!(wrong_value.unwrap_err().contains("p(1): GPU 5, rustc 1"));
    let missing_panic = h.check(
        "p",
        Tolerance::Exact,
        Ok(()),
        &[0, 1, 2, 9],
        &[1, 1, 1, 1],
        host,
        show,
    );
    assert!(missing_panic.unwrap_err().contains("rustc panicked"));
    let extra_panic = h.check(
        "p",
        Tolerance::Exact,
        panic_at(3, "attempt to divide by zero"),
        &out,
        &[1, 0, 1, 0],
        host,
        show,
    );
    assert!(extra_panic.unwrap_err().contains("p(1): GPU panicked"));
    let other_message = h.check(
        "p",
        Tolerance::Exact,
        panic_at(3, "attempt to divide with overflow"),
        &out,
        &[1, 1, 1, 0],
        host,
        show,
    );
    assert!(other_message
        .unwrap_err()
        .contains("rustc with \"attempt to divide by zero\""));
    // Floats: NaN payloads are not compared, ulps only where allowed.
    assert!(f32::NAN.same(-f32::NAN, Tolerance::Exact));
    assert!(!1.0f32.same(1.0f32 + f32::EPSILON, Tolerance::Exact));
    assert!(1.0f32.same(1.0f32 + f32::EPSILON, Tolerance::Ulps(1)));
    assert!(!0.0f64.same(-0.0, Tolerance::Exact));
    assert!(0.0f64.same(-0.0, Tolerance::Ulps(1)));
}
