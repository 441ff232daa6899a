//! Every float method of the table (`proc::methods`) on f32 and f64 at the type's edges:
//! the exact operations bit for bit, the libdevice functions within their documented
//! ulps (CUDA C Programming Guide, "Mathematical Functions") plus one for the host's
//! libm, and every one exactly in class (NaN, the sign of an infinity, of a zero).

use super::common::Rng;
use super::edges::{Edges, Report};
use cudajit::prelude::*;

/// `$test` launches `$kern` on `$t`'s edges: `values` are
/// `(device, host, f32 ulps, f64 ulps, either zero allowed)`, `bools` and `ints` exact.
macro_rules! float_suite {
    (
        $test:ident, $kern:ident, $t:ident, $ulps:ident, ($x:ident, $y:ident, $z:ident, $k:ident),
        values: [$(($dev:expr, $host:expr, $u32:expr, $u64:expr, $anyzero:expr)),* $(,)?],
        bools: [$($bool:expr),* $(,)?],
        ints: [$($int:expr),* $(,)?] $(,)?
    ) => {
        #[kernel]
        #[allow(clippy::all)]
        fn $kern(
            xs: &[$t],
            ys: &[$t],
            zs: &[$t],
            ks: &[u32],
            out: &mut [$t],
            bools: &mut [bool],
            ints: &mut [i64],
        ) {
            let i = grid(1);
            let n = xs.len();
            if i < n {
                let $x = xs[i];
                let $y = ys[i];
                let $z = zs[i];
                let $k = ks[i];
                let mut j: usize = 0;
                $(
                    out[j * n + i] = $dev;
                    j += 1;
                )*
                let mut b: usize = 0;
                $(
                    bools[b * n + i] = $bool;
                    b += 1;
                )*
                let mut w: usize = 0;
                $(
                    ints[w * n + i] = $int;
                    w += 1;
                )*
            }
        }

        #[test]
        #[allow(clippy::all)]
        fn $test() {
            let _device = require_device!();
            let mut rng = Rng::fresh(stringify!($test));
            let edges = <$t>::edges();
            // Every edge and -100..=100 in quarters against a few partners, then every
            // pair of edges, then random values of every magnitude.
            let mut xs: Vec<$t> = edges.clone();
            xs.extend((-400..=400).map(|q| q as $t / 4.0));
            let m = xs.len();
            let mut ys: Vec<$t> = (0..m).map(|j| edges[(j * 5 + 3) % edges.len()]).collect();
            for &a in &edges {
                for &b in &edges {
                    xs.push(a);
                    ys.push(b);
                }
            }
            for _ in 0..512 {
                let r = |rng: &mut Rng| match rng.below(3) {
                    0 => <$t>::from_bits(rng.next_u64() as _),
                    1 => rng.f64_in(-1e3, 1e3) as $t,
                    _ => rng.f64_in(-20.0, 20.0) as $t,
                };
                xs.push(r(&mut rng));
                ys.push(r(&mut rng));
            }
            let n = xs.len();
            let zs: Vec<$t> = (0..n).map(|j| edges[(j * 11 + j / edges.len()) % edges.len()]).collect();
            let ks: Vec<u32> = (0..n).map(|j| if j % 3 == 0 { rng.next_u64() as u32 } else { (j as u32).wrapping_mul(2654435761) >> 20 }).collect();
            let names = [$(stringify!($dev)),*];
            let tolerances: [(u32, bool); 0 $(+ { let _ = stringify!($dev); 1 })*] =
                [$((if stringify!($t) == "f32" { $u32 } else { $u64 }, $anyzero)),*];
            let bool_names = [$(stringify!($bool)),*];
            let int_names = [$(stringify!($int)),*];
            let (nv, nb, ni) = (names.len(), bool_names.len(), int_names.len());
            let mut out = vec![<$t>::from_bits(0x7fc0_0000_dead_beef_u64 as _); nv * n];
            let mut bools = vec![false; nb * n];
            let mut ints = vec![0x5a5ai64; ni * n];
            launch!($kern[n.div_ceil(128), 128](&xs, &ys, &zs, &ks, &mut out, &mut bools, &mut ints)).unwrap();
            let mut report = Report::default();
            for i in 0..n {
                let ($x, $y, $z, $k) = (xs[i], ys[i], zs[i], ks[i]);
                let input = ($x, $y, $z, $k);
                let want: [$t; 0 $(+ { let _ = stringify!($dev); 1 })*] = [$($host),*];
                for (j, w) in want.iter().enumerate() {
                    let (ulps, any_zero) = tolerances[j];
                    report.check(names[j], input, out[j * n + i], *w, ulps, any_zero);
                }
                let want_bools: [bool; 0 $(+ { let _ = stringify!($bool); 1 })*] = [$($bool),*];
                for (b, w) in want_bools.iter().enumerate() {
                    report.check(bool_names[b], input, bools[b * n + i], *w, 0, false);
                }
                let want_ints: [i64; 0 $(+ { let _ = stringify!($int); 1 })*] = [$($int),*];
                for (w, v) in want_ints.iter().enumerate() {
                    report.check(int_names[w], input, ints[w * n + i], *v, 0, false);
                }
            }
            report.assert_clean(stringify!($test));
        }
    };
}

/// The float methods, for `$t`; transcendental tolerances are libdevice's documented
/// maximum errors (f32, f64) plus one ulp for the host's libm.
macro_rules! float_type {
    ($test:ident, $kern:ident, $t:ident) => {
        float_suite! {
            $test, $kern, $t, ulps, (x, y, z, k),
            values: [
                // Exact: IEEE operations and std's definitions.
                (x.sqrt(), x.sqrt(), 0, 0, false),
                (x.floor(), x.floor(), 0, 0, false),
                ($t::ceil(x), $t::ceil(x), 0, 0, false),
                (x.round(), x.round(), 0, 0, false),
                (x.trunc(), x.trunc(), 0, 0, false),
                (x.fract(), x.fract(), 0, 0, false),
                (x.abs(), x.abs(), 0, 0, false),
                (x.signum(), x.signum(), 0, 0, false),
                (x.copysign(y), x.copysign(y), 0, 0, false),
                (x.mul_add(y, z), x.mul_add(y, z), 0, 0, false),
                (x * y + z, x * y + z, 0, 0, false),
                (x.min(y), x.min(y), 0, 0, true),
                ($t::max(x, y), $t::max(x, y), 0, 0, true),
                (x.clamp(y.min(0.0), z.max(0.0)), x.clamp(y.min(0.0), z.max(0.0)), 0, 0, true),
                (x.clamp(-1.5, 2.5), x.clamp(-1.5, 2.5), 0, 0, false),
                (x.recip(), x.recip(), 0, 0, false),
                (x.to_degrees(), x.to_degrees(), 0, 0, false),
                (x.to_radians(), x.to_radians(), 0, 0, false),
                (x / y, x / y, 0, 0, false),
                (x % y, x % y, 0, 0, false),
                (-x, -x, 0, 0, false),
                (x as f32 as $t, x as f32 as $t, 0, 0, false),
                (x as f64 as $t, x as f64 as $t, 0, 0, false),
                ((k as u8) as $t, (k as u8) as $t, 0, 0, false),
                ((k as i8) as $t, (k as i8) as $t, 0, 0, false),
                ((x as i8) as $t, (x as i8) as $t, 0, 0, false),
                ((x as u8) as $t, (x as u8) as $t, 0, 0, false),
                ((x as i16) as $t, (x as i16) as $t, 0, 0, false),
                ((x as i64) as $t, (x as i64) as $t, 0, 0, false),
                ((x as u64) as $t, (x as u64) as $t, 0, 0, false),
                ($t::from_bits(y.to_bits() ^ 1), $t::from_bits(y.to_bits() ^ 1), 0, 0, false),
                // libdevice, within documented ulps (+1 for the host's libm).
                (x.cbrt(), x.cbrt(), 2, 2, false),
                (x.sin(), x.sin(), 3, 3, false),
                (x.cos(), x.cos(), 3, 3, false),
                (x.tan(), x.tan(), 5, 3, false),
                (x.asin(), x.asin(), 3, 3, false),
                (x.acos(), x.acos(), 3, 3, false),
                (x.atan(), x.atan(), 3, 3, false),
                (x.atan2(y), x.atan2(y), 4, 3, false),
                (x.sinh(), x.sinh(), 4, 3, false),
                (x.cosh(), x.cosh(), 3, 2, false),
                (x.tanh(), x.tanh(), 3, 2, false),
                (x.exp(), x.exp(), 3, 2, false),
                (x.exp2(), x.exp2(), 3, 2, false),
                (x.exp_m1(), x.exp_m1(), 2, 2, false),
                (x.ln(), x.ln(), 2, 2, false),
                (x.log2(), x.log2(), 2, 2, false),
                (x.log10(), x.log10(), 3, 2, false),
                (x.ln_1p(), x.ln_1p(), 2, 2, false),
                (x.powf(y), x.powf(y), 5, 3, false),
                (x.powi((k % 9) as i32 - 4), x.powi((k % 9) as i32 - 4), 9, 9, false),
                (x.hypot(y), x.hypot(y), 4, 3, false),
                // The chain issue 22's generated sinh argument came from.
                ((k as u8 as $t).min(x).mul_add(y, (k as i8) as $t).recip().sinh(),
                 (k as u8 as $t).min(x).mul_add(y, (k as i8) as $t).recip().sinh(), 4, 3, false),
            ],
            bools: [x.is_nan(), x.is_finite(), x < y, x == y, x >= y, x.abs() < 63.0, x.sqrt() > y],
            ints: [
                x.to_bits() as i64,
                x as i8 as i64,
                x as u8 as i64,
                x as i16 as i64,
                x as u16 as i64,
                x as i32 as i64,
                x as u32 as i64,
                x as i64,
                x as u64 as i64,
                x as isize as i64,
                x as usize as i64,
            ],
        }
    };
}

float_type!(f32_methods_at_edges, f32_edges, f32);
float_type!(f64_methods_at_edges, f64_edges, f64);
