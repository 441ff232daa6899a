//! README "The kernel subset": integer methods with std's semantics. One kernel per
//! group of methods named in the bullet.
use cudajit::prelude::*;

#[kernel]
fn integer_min_max_abs_clamp(i: &mut [i32], u: &mut [u64]) {
    i[0] = i[1].min(i[2]) + i[3].max(i[4]) + i[5].abs() + i[6].clamp(-1, 1);
    u[0] = u[1].min(u[2]) + u[3].max(u[4]) + u[5].clamp(1, 9);
}

#[kernel]
fn integer_wrapping_and_saturating(i: &mut [i64], u: &mut [u8]) {
    i[0] = i[1].wrapping_add(i[2])
        + i[3].wrapping_sub(i[4])
        + i[5].wrapping_mul(i[6])
        + i[7].wrapping_pow(3)
        + i[8].saturating_add(1)
        + i[9].saturating_sub(1);
    u[0] = u[1]
        .wrapping_add(200)
        .saturating_add(u[2])
        .saturating_sub(u[3]);
}

#[kernel]
fn integer_bit_counting(u: &mut [u32], i: &mut [i16]) {
    u[0] = u[1].count_ones() + u[2].leading_zeros() + u[3].trailing_zeros();
    u[4] = i[0].count_ones() + i[1].leading_zeros() + i[2].trailing_zeros();
}

#[kernel]
fn integer_rotate_swap_reverse(u: &mut [u32], i: &mut [i64]) {
    u[0] = u[1].rotate_left(3) ^ u[2].rotate_right(5) ^ u[3].swap_bytes() ^ u[4].reverse_bits();
    i[0] = i[1].rotate_left(7) ^ i[2].swap_bytes() ^ i[3].reverse_bits();
}

#[kernel]
fn integer_pow(u: &mut [u32], i: &mut [i32]) {
    u[0] = u[1].pow(3);
    i[0] = i[1].pow(2);
}

fn main() {}
