//! Every integer method of the table (`proc::methods`) and `mul_hi`, on every integer
//! type, at the type's edges. Each result is stored, widened to i64, converted to f32
//! and f64 and compared inside the kernel (`flags`): a narrow result that a GPU holds
//! wrongly extended in a 32-bit register (i16 `abs` of MIN on the H200, issue 22) is
//! right once stored, so only its consumers show it.

use super::common::Rng;
use super::edges::{Edges, Report};
use cudajit::prelude::*;

/// What the kernel derives from each result `r`, computed the same way on the host.
macro_rules! consumers {
    ($t:ident, $r:expr) => {{
        let r: $t = $r;
        let flags = (r < (0 as $t)) as u32
            | ((r > (62 as $t)) as u32) << 1
            | ((r == $t::MIN) as u32) << 2
            | ((r / (3 as $t) > (0 as $t)) as u32) << 3
            | ((r >= (1 as $t)) as u32) << 4;
        (r, r as i64, r as f32, r as f64, flags)
    }};
}

/// `$test` launches `$kern` on `$t`'s edges: `values` are methods returning `$t`
/// (`device expression => host expression` where a debug build's rustc would panic on
/// overflow that the kernel defines as wrapping), `counts` return u32, `casts` i64.
macro_rules! int_suite {
    (
        $test:ident, $kern:ident, $t:ident, ($x:ident, $y:ident, $z:ident, $k:ident),
        values: [$($dev:expr => $host:expr),* $(,)?],
        counts: [$($count:expr),* $(,)?],
        casts: [$($cast:expr),* $(,)?] $(,)?
    ) => {
        #[kernel]
        #[allow(clippy::all)]
        fn $kern(
            xs: &[$t],
            ys: &[$t],
            zs: &[$t],
            ks: &[u32],
            out: &mut [$t],
            wide: &mut [i64],
            singles: &mut [f32],
            doubles: &mut [f64],
            flags: &mut [u32],
            counts: &mut [u32],
            casts: &mut [i64],
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
                    {
                        let r: $t = $dev;
                        out[j * n + i] = r;
                        wide[j * n + i] = r as i64;
                        singles[j * n + i] = r as f32;
                        doubles[j * n + i] = r as f64;
                        flags[j * n + i] = (r < (0 as $t)) as u32
                            | ((r > (62 as $t)) as u32) << 1
                            | ((r == $t::MIN) as u32) << 2
                            | ((r / (3 as $t) > (0 as $t)) as u32) << 3
                            | ((r >= (1 as $t)) as u32) << 4;
                        j += 1;
                    }
                )*
                let mut c: usize = 0;
                $(
                    counts[c * n + i] = $count;
                    c += 1;
                )*
                let mut w: usize = 0;
                $(
                    casts[w * n + i] = $cast;
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
            // Every edge against a core of edges, then random values.
            let core: Vec<$t> = [0 as $t, 1, 2, 63, $t::MAX, $t::MIN, $t::MAX / 2 + 1]
                .into_iter()
                .chain([1 as $t, 2, 63].map(|k| (0 as $t).wrapping_sub(k)))
                .collect();
            let amounts = [0u32, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, u32::MAX];
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            for &a in &edges {
                for &b in &core {
                    xs.push(a);
                    ys.push(b);
                }
            }
            for _ in 0..256 {
                xs.push(rng.next_u64() as $t);
                ys.push(if rng.below(2) == 0 { rng.next_u64() as $t } else { edges[rng.below(edges.len() as u64) as usize] });
            }
            let n = xs.len();
            let zs: Vec<$t> = (0..n).map(|j| edges[(j * 7 + j / edges.len()) % edges.len()]).collect();
            let ks: Vec<u32> = (0..n)
                .map(|j| if j % 4 == 3 { rng.next_u64() as u32 } else { amounts[(j + j / amounts.len()) % amounts.len()] })
                .collect();
            let values = [$(stringify!($dev)),*];
            let count_names = [$(stringify!($count)),*];
            let cast_names = [$(stringify!($cast)),*];
            let (nv, nc, nw) = (values.len(), count_names.len(), cast_names.len());
            let mut out = vec![$t::MAX ^ 0x5a; nv * n];
            let mut wide = vec![0x5a5ai64; nv * n];
            let mut singles = vec![f32::NAN; nv * n];
            let mut doubles = vec![f64::NAN; nv * n];
            let mut flags = vec![u32::MAX; nv * n];
            let mut counts = vec![u32::MAX; nc * n];
            let mut casts = vec![0x5a5ai64; nw * n];
            launch!($kern[n.div_ceil(128), 128](
                &xs, &ys, &zs, &ks, &mut out, &mut wide, &mut singles, &mut doubles,
                &mut flags, &mut counts, &mut casts
            ))
            .unwrap();
            let mut report = Report::default();
            for i in 0..n {
                let ($x, $y, $z, $k) = (xs[i], ys[i], zs[i], ks[i]);
                let input = ($x, $y, $z, $k);
                let want = [$(consumers!($t, $host)),*];
                for (j, w) in want.iter().enumerate() {
                    let what = values[j];
                    report.check(what, input, out[j * n + i], w.0, 0, false);
                    report.check(&format!("{what} as i64"), input, wide[j * n + i], w.1, 0, false);
                    report.check(&format!("{what} as f32"), input, singles[j * n + i], w.2, 0, false);
                    report.check(&format!("{what} as f64"), input, doubles[j * n + i], w.3, 0, false);
                    report.check(&format!("{what} compared"), input, flags[j * n + i], w.4, 0, false);
                }
                let want_counts: [u32; 0 $(+ { let _ = stringify!($count); 1 })*] = [$($count),*];
                for (c, w) in want_counts.iter().enumerate() {
                    report.check(count_names[c], input, counts[c * n + i], *w, 0, false);
                }
                let want_casts: [i64; 0 $(+ { let _ = stringify!($cast); 1 })*] = [$($cast),*];
                for (c, w) in want_casts.iter().enumerate() {
                    report.check(cast_names[c], input, casts[c * n + i], *w, 0, false);
                }
            }
            report.assert_clean(stringify!($test));
        }
    };
}

/// The methods every integer type has, then `$extra`.
macro_rules! int_type {
    ($test:ident, $kern:ident, $t:ident, ($x:ident, $y:ident, $z:ident, $k:ident), [$($extra:tt)*]) => {
        int_suite! {
            $test, $kern, $t, ($x, $y, $z, $k),
            values: [
                $x.min($y) => $x.min($y),
                $t::max($x, $y) => $t::max($x, $y),
                $x.clamp($y.min($z), $y.max($z)) => $x.clamp($y.min($z), $y.max($z)),
                $x.rotate_left($k) => $x.rotate_left($k),
                $x.rotate_right($k) => $x.rotate_right($k),
                $x.swap_bytes() => $x.swap_bytes(),
                $x.reverse_bits() => $x.reverse_bits(),
                $x.pow($k % 70) => $x.wrapping_pow($k % 70),
                $x.wrapping_pow($k) => $x.wrapping_pow($k),
                $x.saturating_add($y) => $x.saturating_add($y),
                $x.saturating_sub($y) => $x.saturating_sub($y),
                $x.wrapping_add($y) => $x.wrapping_add($y),
                $x.wrapping_sub($y) => $x.wrapping_sub($y),
                $x.wrapping_mul($y) => $x.wrapping_mul($y),
                (0 as $t).wrapping_sub($x) => (0 as $t).wrapping_sub($x),
                $x >> ($k & 7) => $x >> ($k & 7),
                ($x as i8) as $t => ($x as i8) as $t,
                ($x as u8) as $t => ($x as u8) as $t,
                ($x as i16) as $t => ($x as i16) as $t,
                ($x as u16) as $t => ($x as u16) as $t,
                $($extra)*
            ],
            counts: [$x.count_ones(), $x.leading_zeros(), $x.trailing_zeros()],
            casts: [
                $x as i8 as i64,
                $x as u8 as i64,
                $x as i16 as i64,
                $x as u16 as i64,
                $x as i32 as i64,
                $x as u32 as i64,
                $x as u64 as i64,
                $x as isize as i64,
                $x as usize as i64,
                ($x as i8 as f32).to_bits() as i64,
                ($x as u8 as f32).to_bits() as i64,
                ($x as i16 as f64).to_bits() as i64,
                ($x as f32).to_bits() as i64,
                ($x as f64).to_bits() as i64,
            ],
        }
    };
}

// `abs` wraps in release Rust: `i16::MIN.abs()` is `i16::MIN`.
int_type!(i8_methods_at_edges, i8_edges, i8, (x, y, z, k), [x.abs() => x.wrapping_abs(), y.abs().min(x) => y.wrapping_abs().min(x),]);
int_type!(i16_methods_at_edges, i16_edges, i16, (x, y, z, k), [x.abs() => x.wrapping_abs(), y.abs().min(x) => y.wrapping_abs().min(x),]);
int_type!(i32_methods_at_edges, i32_edges, i32, (x, y, z, k), [
    x.abs() => x.wrapping_abs(),
    y.abs().min(x) => y.wrapping_abs().min(x),
    mul_hi(x, y) => ((x as i64 * y as i64) >> 32) as i32,
]);
int_type!(i64_methods_at_edges, i64_edges, i64, (x, y, z, k), [
    x.abs() => x.wrapping_abs(),
    y.abs().min(x) => y.wrapping_abs().min(x),
    mul_hi(x, y) => ((x as i128 * y as i128) >> 64) as i64,
]);
int_type!(isize_methods_at_edges, isize_edges, isize, (x, y, z, k), [x.abs() => x.wrapping_abs(), y.abs().min(x) => y.wrapping_abs().min(x),]);
int_type!(u8_methods_at_edges, u8_edges, u8, (x, y, z, k), []);
int_type!(u16_methods_at_edges, u16_edges, u16, (x, y, z, k), []);
int_type!(u32_methods_at_edges, u32_edges, u32, (x, y, z, k), [mul_hi(x, y) => ((x as u64 * y as u64) >> 32) as u32,]);
int_type!(u64_methods_at_edges, u64_edges, u64, (x, y, z, k), [mul_hi(x, y) => ((x as u128 * y as u128) >> 64) as u64,]);
int_type!(usize_methods_at_edges, usize_edges, usize, (x, y, z, k), []);
