//! Reductions into `#[derive(DeviceCopy)]` structs with maps that see the index
//! (issue 12: "an argmax over (value, index) tuples"): argmax and argmin of f32 and f64
//! with ties broken to the lowest index (what `Iterator::max_by` does not do: it keeps
//! the last of equal maxima), and an index-weighted sum into a scalar, each against a
//! host reference on fresh random inputs with many ties. An empty input gives the
//! identity, whose index (`u32::MAX`) says "none".

use super::common::Rng;
use super::hl::{add_f64, lengths};
use cudajit::prelude::*;
use cudajit::{device_fn, DeviceArray};

/// A value and where it was: the element type of an argmax. Tuples have no
/// guaranteed layout, so the pair is a `#[repr(C)]` struct.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct ValueIndex {
    pub value: f32,
    pub index: u32,
}

/// The f64 pair, with a 64-bit index.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct WideValueIndex {
    pub value: f64,
    pub index: u64,
}

#[cudajit::device]
fn tag(i: usize, x: f32) -> ValueIndex {
    ValueIndex {
        value: x,
        index: i as u32,
    }
}

#[cudajit::device]
fn tag_wide(i: usize, x: f64) -> WideValueIndex {
    WideValueIndex {
        value: x,
        index: i as u64,
    }
}

/// The larger value; on a tie the lower index; a NaN never wins. Associative and
/// commutative, as a reduction's operator must be.
#[cudajit::device]
fn larger(a: ValueIndex, b: ValueIndex) -> ValueIndex {
    if a.value.is_nan() {
        b
    } else if b.value.is_nan() {
        a
    } else if b.value > a.value || (b.value == a.value && b.index < a.index) {
        b
    } else {
        a
    }
}

/// The smaller value; on a tie the lower index.
#[cudajit::device]
fn smaller_wide(a: WideValueIndex, b: WideValueIndex) -> WideValueIndex {
    if b.value < a.value || (b.value == a.value && b.index < a.index) {
        b
    } else {
        a
    }
}

#[cudajit::device]
fn weighted(i: usize, x: f32) -> f64 {
    (i % 7) as f64 * x as f64
}

const NO_MAX: ValueIndex = ValueIndex {
    value: f32::NEG_INFINITY,
    index: u32::MAX,
};
const NO_MIN: WideValueIndex = WideValueIndex {
    value: f64::INFINITY,
    index: u64::MAX,
};

/// The first index of the largest value (NaNs skipped), or `None` when there is none.
fn host_argmax(x: &[f32]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &v) in x.iter().enumerate() {
        if !v.is_nan() && best.is_none_or(|b| v > x[b]) {
            best = Some(i);
        }
    }
    best
}

fn host_argmin(x: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &v) in x.iter().enumerate() {
        if best.is_none_or(|b| v < x[b]) {
            best = Some(i);
        }
    }
    best
}

/// Values from a small set (many ties, the largest repeated all over), a few NaNs and
/// infinities.
fn tied_f32(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| match rng.below(40) {
            0 => f32::NAN,
            1 => f32::NEG_INFINITY,
            k => (k % 13) as f32 - 6.0,
        })
        .collect()
}

#[test]
fn argmax_and_argmin_break_ties_to_the_lowest_index() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl argmax");
    let mut sizes = lengths(&device);
    sizes.extend([(1 << 10) + 1, (1 << 16) + 1]);
    for n in sizes {
        let x = tied_f32(&mut rng, n);
        let got =
            cudajit::map_reduce_indexed(&x, device_fn!(tag), device_fn!(larger), NO_MAX).unwrap();
        match host_argmax(&x) {
            Some(i) => assert_eq!(
                got,
                ValueIndex {
                    value: x[i],
                    index: i as u32
                },
                "argmax of {n}"
            ),
            None => assert_eq!(got, NO_MAX, "argmax of {n} (no value)"),
        }

        // f64 with a 64-bit index, from a device array, on a stream.
        let xd: Vec<f64> = (0..n).map(|_| rng.below(25) as f64 * 0.5).collect();
        let stream = device.new_stream().unwrap();
        let dx = DeviceArray::from_slice_on(&device, &xd).unwrap();
        let got = cudajit::map_reduce_indexed_on(
            &stream,
            &dx,
            device_fn!(tag_wide),
            device_fn!(smaller_wide),
            NO_MIN,
        )
        .unwrap();
        let want = match host_argmin(&xd) {
            Some(i) => WideValueIndex {
                value: xd[i],
                index: i as u64,
            },
            None => NO_MIN,
        };
        assert_eq!(got, want, "argmin of {n}");
    }
}

#[test]
fn the_map_sees_each_elements_index() {
    let device = require_gpu!();
    let mut rng = Rng::fresh("hl indexed map");
    for n in lengths(&device) {
        // Small integers: every partial sum is exact in f64, whatever the order.
        let x: Vec<f32> = (0..n).map(|_| rng.below(9) as f32 - 4.0).collect();
        let got = cudajit::map_reduce_indexed(&x, device_fn!(weighted), device_fn!(add_f64), 0.0)
            .unwrap();
        let want: f64 = x
            .iter()
            .enumerate()
            .map(|(i, &v)| (i % 7) as f64 * v as f64)
            .sum();
        assert_eq!(got, want, "index-weighted sum of {n}");
    }
}
