//! Edge values of every scalar type, and the comparison of a kernel's results with
//! rustc's.

/// Whether this build wraps on integer overflow as kernels do (release semantics).
pub fn overflow_checks_off() -> bool {
    let max = std::hint::black_box(u8::MAX);
    std::panic::catch_unwind(|| max + std::hint::black_box(1)).is_ok()
}

macro_rules! int_edges {
    ($($t:ident),*) => {$(
        impl Edges for $t {
            fn edges() -> Vec<$t> {
                let mut v: Vec<$t> = vec![0, 1, 2, 3, 7, 8, 62, 63, 64, 0x7f, 0x80u8 as $t, 0xffu8 as $t];
                v.extend([$t::MAX, $t::MAX - 1, $t::MAX / 2, $t::MAX / 2 + 1]);
                v.extend([$t::MIN, $t::MIN.wrapping_add(1), $t::MIN / 2]);
                // -1, -2, -63 for signed types; MAX, MAX-1, MAX-62 for unsigned ones.
                v.extend([1 as $t, 2, 63].map(|k| (0 as $t).wrapping_sub(k)));
                // Every power of two and its neighbours: the bit counts' edges.
                for s in 0..$t::BITS {
                    let p = (1 as $t) << s;
                    v.extend([p, p.wrapping_sub(1), p.wrapping_add(1)]);
                }
                v.sort_unstable();
                v.dedup();
                v
            }
        }
    )*};
}

pub trait Edges: Sized {
    fn edges() -> Vec<Self>;
}

int_edges!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_edges {
    ($($t:ident),*) => {$(
        impl Edges for $t {
            fn edges() -> Vec<$t> {
                let mut v: Vec<$t> = vec![
                    0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.1, 1e-8, 0.75,
                    std::$t::consts::PI, std::$t::consts::FRAC_PI_2, std::$t::consts::LN_2,
                    // Around the integer types' saturation bounds.
                    127.0, 127.5, 128.0, 128.5, 129.0, 255.0, 255.5, 256.0,
                    32767.0, 32768.0, 65535.0, 65536.0,
                    2147483647.0, 2147483648.0, 4294967295.0, 4294967296.0,
                    9.2233720368547758e18, 1.8446744073709552e19,
                    // Near overflow of exp/sinh/cosh/exp2 in f32 and f64.
                    66.0, 87.0, 88.5, 88.72, 89.0, 89.41, 89.42, 90.0, 96.0, 100.0,
                    126.0, 127.99, 128.0, 149.0, 150.0,
                    708.0, 709.78, 710.0, 710.5, 711.0, 1022.0, 1024.0, 1075.0,
                    1e10, 1e20, 1e30, 3.0e38, 1e300f64 as $t,
                    $t::MAX, $t::MIN_POSITIVE, $t::EPSILON,
                    $t::MIN_POSITIVE / 2.0,
                    // The smallest and largest subnormals.
                    $t::from_bits(1), $t::from_bits($t::MIN_POSITIVE.to_bits() - 1),
                    $t::INFINITY,
                ];
                let negatives: Vec<$t> = v.iter().map(|x| -x).collect();
                v.extend(negatives);
                v.extend([$t::NAN, -$t::NAN]);
                v
            }
        }
    )*};
}

float_edges!(f32, f64);

/// A result as rustc and the kernel must agree on it.
pub trait Same: Copy + std::fmt::Debug {
    /// `ulps`: the allowed error (0: bit for bit); class (NaN, the sign of an infinity
    /// and of a zero) always matches exactly, unless `any_zero` allows either zero.
    fn same(self, want: Self, ulps: u32, any_zero: bool) -> bool;
}

macro_rules! int_same {
    ($($t:ty),*) => {$(
        impl Same for $t {
            fn same(self, want: Self, _: u32, _: bool) -> bool {
                self == want
            }
        }
    )*};
}
int_same!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool);

macro_rules! float_same {
    ($t:ty, $signed:ty) => {
        impl Same for $t {
            fn same(self, want: Self, ulps: u32, any_zero: bool) -> bool {
                if self.is_nan() || want.is_nan() {
                    return self.is_nan() && want.is_nan();
                }
                if self == 0.0 && want == 0.0 {
                    return any_zero || self.to_bits() == want.to_bits();
                }
                if self.is_sign_negative() != want.is_sign_negative() {
                    return false;
                }
                // Ordered keys: adjacent floats differ by one (MAX and inf too).
                let key = |x: $t| (x.to_bits() as $signed as i128).abs();
                (key(self) - key(want)).unsigned_abs() <= ulps as u128
            }
        }
    };
}
float_same!(f32, i32);
float_same!(f64, i64);

/// Collects mismatches: at most a few per operation are shown, all are counted.
#[derive(Default)]
pub struct Report {
    pub compared: usize,
    pub failures: Vec<String>,
    pub failing: usize,
    /// Results that differ only in the sign of a zero where Rust leaves it unspecified
    /// (`min`/`max` of +0.0 and -0.0): counted and shown, not failures.
    pub unspecified: Vec<String>,
}

impl Report {
    #[allow(clippy::too_many_arguments)]
    pub fn check<T: Same>(
        &mut self,
        what: &str,
        input: impl std::fmt::Debug,
        got: T,
        want: T,
        ulps: u32,
        any_zero: bool,
    ) {
        self.compared += 1;
        if any_zero && got.same(want, ulps, true) && !got.same(want, ulps, false) {
            if self.unspecified.len() < 4 {
                self.unspecified
                    .push(format!("{what}{input:?}: device {got:?}, rustc {want:?}"));
            }
        }
        if !got.same(want, ulps, any_zero) {
            self.failing += 1;
            let shown = self.failures.iter().filter(|f| f.starts_with(what)).count();
            if shown < 3 {
                self.failures
                    .push(format!("{what}{input:?}: device {got:?}, rustc {want:?}"));
            }
        }
    }

    pub fn assert_clean(self, suite: &str) {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "{suite}: {} results compared, {} differ from rustc{}",
            self.compared,
            self.failing,
            if self.unspecified.is_empty() {
                String::new()
            } else {
                format!(
                    "; the sign of a zero Rust leaves unspecified differs, e.g.:\n  {}",
                    self.unspecified.join("\n  ")
                )
            }
        );
        assert!(
            self.failures.is_empty(),
            "{suite}: {} of {} results differ from rustc:\n{}",
            self.failing,
            self.compared,
            self.failures.join("\n")
        );
    }
}
