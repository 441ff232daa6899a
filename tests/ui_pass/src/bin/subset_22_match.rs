//! README "The kernel subset": `match` on integers, bools, ranges and tuples of them
//! (guards, `_`, `|`, `n @ pattern`, `..`), as a value and as a statement; `if let`,
//! `while let` and `matches!`. One kernel per construct.
use cudajit::prelude::*;

const LIMIT: u32 = 40;

#[kernel]
fn match_integers_and_ranges(a: &mut [i32]) {
    a[1] = match a[0] {
        i32::MIN..=-1 => -1,
        0 => 0,
        1 | 2 | 3 => 1,
        n @ 4..=9 => n * 2,
        10..100 => 3,
        _ => 4,
    };
}

#[kernel]
fn match_with_guards_and_bindings(a: &mut [u32]) {
    a[1] = match a[0] {
        LIMIT => 0,
        n if n % 2 == 0 => n / 2,
        n => 3 * n + 1,
    };
}

#[kernel]
fn match_on_tuples(a: &mut [u32], flag: bool) {
    a[2] = match (a[0], flag, a[1]) {
        (0, true, _) => 1,
        (x, false, 1..=9) if x > 2 => x,
        (.., 100) => 2,
        _ => 3,
    };
}

#[kernel]
fn match_as_a_statement(a: &mut [u32], flag: bool) {
    for i in 0..a.len() {
        match flag {
            true => a[i] += 1,
            false => {
                if a[i] == 0 {
                    continue;
                }
                a[i] -= 1;
            }
        }
    }
}

#[kernel]
fn if_let_and_while_let(a: &mut [u32]) {
    a[1] = if let n @ 1..=9 = a[0] {
        n
    } else if let 10 | 20 = a[0] {
        2
    } else {
        0
    };
    let mut v = a[0];
    while let 1.. = v {
        v /= 2;
        a[2] += 1;
    }
}

#[kernel]
fn matches_macro(a: &mut [u32]) {
    a[1] = matches!(a[0], 1..=5 | 9) as u32 + matches!(a[0], x if x > LIMIT) as u32;
}

fn main() {}
