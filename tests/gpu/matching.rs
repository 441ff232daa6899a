//! `match`, `if let`, `while let` and `matches!` on the device against rustc's own
//! compilation of the same `#[device]` functions on the host (the semantics cudajit's
//! if-chains must reproduce), on fresh random inputs with the edges of each range, and
//! with poisoned outputs.

use super::common;
use cudajit::prelude::*;

/// Integer, range, or-, binding and guard patterns, tuples of them, `match` as a value
/// and as a statement, `if let` chains and `matches!`. Also runs on the host as the
/// reference.
#[device]
pub fn classify(x: i32, y: u8, flag: bool) -> i64 {
    let a: i64 = match x {
        i32::MIN..=-1000 => 1,
        -999..=-1 => 2,
        0 => 3,
        1 | 2 | 3 => 4,
        n @ 4..=9 => n as i64 * 10,
        10..100 => 6,
        n if n % 2 == 0 => 7,
        _ => 8,
    };
    let b: i64 = match (x % 3, flag, y) {
        (0, true, _) => 100,
        (0, false, 0..=127) => 200,
        (r, _, v) if r < 0 && v > 200 => 300 + r as i64,
        (1 | 2, ..) => 400,
        (.., 255) => 500,
        _ => 600,
    };
    let mut c = 5i64;
    match flag {
        true => c += 1,
        false => {
            c -= 1;
            c *= 3;
        }
    }
    let d = if let 0..=63 = y {
        1i64
    } else if let n @ (64..=127 | 200) = y {
        n as i64
    } else {
        -1
    };
    let mut e = 0i64;
    if matches!(x, -5..=5 | 100) {
        e += 1;
    }
    if matches!((y, flag), (0..=99, true) if x > 0) {
        e += 2;
    }
    a + b * 7 + c * 11 + d * 13 + e * 17
}

/// `while let` with a binding, `match` arms that `break`, `continue` and `return`,
/// and a `match` on a `u32` range as a value. Also runs on the host as the reference.
#[device]
pub fn walk(start: u32) -> i64 {
    let mut n = start;
    let mut steps = 0i64;
    while let m @ 2.. = n {
        n = match m % 2 {
            0 => m / 2,
            _ => {
                if m > 100_000 {
                    break;
                }
                3 * m + 1
            }
        };
        steps += 1;
        if steps > 300 {
            return -1;
        }
    }
    let mut acc = steps;
    let mut v = start;
    for k in 0..10i64 {
        let digit = v % 10;
        v /= 10;
        match digit {
            0 => continue,
            7 => break,
            9 => return acc * 1000 + k,
            other => acc += other as i64,
        }
        acc *= 2;
    }
    acc
}

#[kernel]
fn pattern_forms(xs: &[i32], ys: &[u8], out: &mut [i64]) {
    let i = grid(1);
    let n = xs.len();
    if i < n {
        let x = xs[i];
        out[i] = classify(x, ys[i], x % 2 == 0);
        out[n + i] = walk(x as u32 % 5000);
        out[2 * n + i] = walk(x as u32);
    }
}

#[test]
fn pattern_forms_match_rustc() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("pattern_forms");
    let len: usize = 4096;
    // The ends of every range in `classify` first, then small and full-range values.
    let edges = [
        i32::MIN,
        -1000,
        -999,
        -1,
        0,
        1,
        3,
        4,
        9,
        10,
        99,
        100,
        101,
        i32::MAX,
        -5,
        5,
        6,
        7,
        77,
    ];
    let xs: Vec<i32> = (0..len)
        .map(|i| match i {
            i if i < edges.len() => edges[i],
            i if i % 2 == 0 => rng.below(2400) as i32 - 1200,
            _ => rng.next_u64() as i32,
        })
        .collect();
    let ys: Vec<u8> = (0..len)
        .map(|i| match i % 7 {
            0 => [0u8, 63, 64, 127, 128, 200, 201, 255][(i / 7) % 8],
            _ => rng.next_u64() as u8,
        })
        .collect();
    let mut out = vec![i64::MIN; 3 * len];
    launch!(pattern_forms[len / 128, 128](&xs, &ys, &mut out)).unwrap();
    for i in 0..len {
        let (x, y) = (xs[i], ys[i]);
        assert_eq!(out[i], classify(x, y, x % 2 == 0), "classify({x}, {y})");
        assert_eq!(
            out[len + i],
            walk(x as u32 % 5000),
            "walk({})",
            x as u32 % 5000
        );
        assert_eq!(out[2 * len + i], walk(x as u32), "walk({})", x as u32);
    }
}
