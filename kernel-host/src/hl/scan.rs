//! Scans and stream compaction. Element types of 32 and 64 bits scan in one pass
//! (`lookback`); the others (8/16-bit, `bool`) by reduce-then-scan over tiles of
//! `TILE` elements:
//!
//! 1. `tiles`: each block folds its tile, in order, into the tile's total;
//! 2. `carry`: one block turns the totals into each tile's exclusive prefix;
//! 3. `down`: each block scans its tile again, starting from its prefix.
//!
//! Each thread takes `ITEMS` consecutive elements and the block scans the threads'
//! totals, so the input's order is kept: the operator need only be associative.

use kernel_device::source::FnSource;

use super::numeric::{Builtin, Numeric};
use super::{lookback, synth, Input, IntoDeviceFn, Target};
use crate::device::stream::Stream;
use crate::error::{Error, Result};
use crate::launch::args::{KernelArg, SliceArg, SliceArgMut};
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

/// Consecutive elements per thread.
const ITEMS: usize = 8;
/// Elements per block.
const TILE: usize = ITEMS * synth::BLOCK as usize;

/// The inclusive scan of `input` by `op` (`out[i] = x[0] op .. op x[i]`), a `#[device]`
/// function passed as `device_fn!(op)`: associative, with `identity` its identity
/// (`op(identity, x) == x`). PyCUDA's `InclusiveScanKernel`, CuPy's `cumsum` for `+`.
pub fn inclusive_scan<T, I, F>(
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
) -> Result<DeviceArray<T>>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    scan(None, input, op.into_device_fn().source(), identity, false)
}

/// [`inclusive_scan`] on `stream`.
pub fn inclusive_scan_on<T, I, F>(
    stream: &Stream,
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
) -> Result<DeviceArray<T>>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    scan(
        Some(stream),
        input,
        op.into_device_fn().source(),
        identity,
        false,
    )
}

/// The exclusive scan of `input` by `op` (`out[0] = identity`, `out[i] = x[0] op .. op
/// x[i - 1]`). `op` as for [`inclusive_scan`].
pub fn exclusive_scan<T, I, F>(
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
) -> Result<DeviceArray<T>>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    scan(None, input, op.into_device_fn().source(), identity, true)
}

/// [`exclusive_scan`] on `stream`.
pub fn exclusive_scan_on<T, I, F>(
    stream: &Stream,
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
) -> Result<DeviceArray<T>>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    scan(
        Some(stream),
        input,
        op.into_device_fn().source(),
        identity,
        true,
    )
}

/// [`inclusive_scan`] into `out` (of `input`'s length), allocating nothing: for
/// repeated scans, and to compare with libraries that draw their outputs from a pool.
pub fn inclusive_scan_into<T, I, F>(
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
    out: &mut DeviceArray<T>,
) -> Result<()>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    scan_to(
        None,
        input,
        op.into_device_fn().source(),
        identity,
        false,
        out,
    )
}

/// [`inclusive_scan_into`] on `stream`.
pub fn inclusive_scan_into_on<T, I, F>(
    stream: &Stream,
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
    out: &mut DeviceArray<T>,
) -> Result<()>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    scan_to(
        Some(stream),
        input,
        op.into_device_fn().source(),
        identity,
        false,
        out,
    )
}

/// [`exclusive_scan`] into `out` (of `input`'s length), allocating nothing.
pub fn exclusive_scan_into<T, I, F>(
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
    out: &mut DeviceArray<T>,
) -> Result<()>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    scan_to(
        None,
        input,
        op.into_device_fn().source(),
        identity,
        true,
        out,
    )
}

/// [`exclusive_scan_into`] on `stream`.
pub fn exclusive_scan_into_on<T, I, F>(
    stream: &Stream,
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
    out: &mut DeviceArray<T>,
) -> Result<()>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    scan_to(
        Some(stream),
        input,
        op.into_device_fn().source(),
        identity,
        true,
        out,
    )
}

/// The elements of `input` for which `keep` (a `#[device] fn(T) -> bool`) holds, in
/// their order, as a new array: flags, an exclusive scan of them into positions, a
/// scatter.
pub fn compact<T, I, P>(input: &I, keep: impl IntoDeviceFn<P>) -> Result<DeviceArray<T>>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    P: Fn(T) -> bool + Copy,
{
    compact_with(None, input, keep.into_device_fn().source())
}

/// [`compact`] on `stream`.
pub fn compact_on<T, I, P>(
    stream: &Stream,
    input: &I,
    keep: impl IntoDeviceFn<P>,
) -> Result<DeviceArray<T>>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    P: Fn(T) -> bool + Copy,
{
    compact_with(Some(stream), input, keep.into_device_fn().source())
}

fn scan<T, I>(
    stream: Option<&Stream>,
    input: &I,
    op: &'static FnSource,
    identity: T,
    exclusive: bool,
) -> Result<DeviceArray<T>>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
{
    let target = Target::new(stream, input.home())?;
    // The scan writes every element: no clearing first.
    let mut out = DeviceArray::<T>::unfilled_on(&target.device, input.len())?;
    if input.is_empty() {
        return Ok(out);
    }
    let staged = input.stage(&target.device)?;
    scan_into(&target, &staged, &mut out, op, identity, exclusive)?;
    Ok(out)
}

fn scan_to<T, I>(
    stream: Option<&Stream>,
    input: &I,
    op: &'static FnSource,
    identity: T,
    exclusive: bool,
    out: &mut DeviceArray<T>,
) -> Result<()>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
{
    if out.len() != input.len() {
        let kind = if exclusive { "exclusive" } else { "inclusive" };
        return Err(super::length_mismatch(
            &format!("{kind}_scan_into"),
            [("input", input.len()), ("out", out.len())],
        ));
    }
    if input.is_empty() {
        return Ok(());
    }
    let target = Target::new(stream, input.home().or(Some(out.device())))?;
    let staged = input.stage(&target.device)?;
    scan_into(&target, &staged, out, op, identity, exclusive)
}

/// Scans `input` into `out` (same length, not empty): in one pass where the element
/// type allows (`lookback`), else with the three kernels.
fn scan_into<T: DeviceScalar>(
    target: &Target<'_>,
    input: &DeviceArray<T>,
    out: &mut DeviceArray<T>,
    op: &'static FnSource,
    identity: T,
    exclusive: bool,
) -> Result<()> {
    if lookback::handles::<T>() {
        lookback::scan_into(target, input, out, op, identity, exclusive)
    } else {
        scan_three_pass(target, input, out, op, identity, exclusive)
    }
}

/// Scans `input` into `out` (same length, not empty) with the three kernels.
fn scan_three_pass<T: DeviceScalar>(
    target: &Target<'_>,
    input: &DeviceArray<T>,
    out: &mut DeviceArray<T>,
    op: &'static FnSource,
    identity: T,
    exclusive: bool,
) -> Result<()> {
    let tiles = input.len().div_ceil(TILE);
    let grid = u32::try_from(tiles).map_err(|_| Error::ArgumentMismatch {
        kernel: "cudajit::scan".into(),
        detail: format!(
            "{} elements exceed the {} a scan takes",
            input.len(),
            TILE << 31
        ),
    })?;
    let kernels = ScanKernels::new::<T>(op);
    let mut totals = DeviceArray::<T>::zeros_on(&target.device, tiles)?;
    let mut args = [
        SliceArg::<T>::into_kernel_arg(input),
        SliceArgMut::<T>::into_kernel_arg(&mut totals),
        KernelArg::scalar(identity),
    ];
    let k = kernels.tiles;
    crate::launch::launch(k.source, k.cache, target.config(grid), &mut args)?;
    let mut args = [
        SliceArgMut::<T>::into_kernel_arg(&mut totals),
        KernelArg::scalar(identity),
    ];
    let k = kernels.carry;
    crate::launch::launch(k.source, k.cache, target.config(1), &mut args)?;
    let mut args = [
        SliceArg::<T>::into_kernel_arg(input),
        SliceArg::<T>::into_kernel_arg(&totals),
        SliceArgMut::<T>::into_kernel_arg(out),
        KernelArg::scalar(identity),
        KernelArg::scalar(exclusive),
    ];
    let k = kernels.down;
    crate::launch::launch(k.source, k.cache, target.config(grid), &mut args)
}

pub(super) struct ScanKernels {
    pub tiles: synth::Kernel,
    pub carry: synth::Kernel,
    pub down: synth::Kernel,
}

impl ScanKernels {
    pub fn new<T: DeviceScalar>(op: &'static FnSource) -> Self {
        let t = T::SCALAR.rust_name();
        let opn = synth::callee(op, t);
        let block = synth::BLOCK;
        let scan = synth::block_scan(&opn);
        let prologue = format!(
            "let cj_sm = shared_array::<[{t}; {block}]>();
    let cj_tid = thread_idx().x as usize;"
        );
        // The thread's ITEMS consecutive elements folded in order into `cj_v`.
        let fold = format!(
            "let cj_n = cj_in.len();
    let cj_base = block_idx().x as usize * {TILE} + cj_tid * {ITEMS};
    let mut cj_v = cj_identity;
    for cj_k in 0..{ITEMS}usize {{
        let cj_i = cj_base + cj_k;
        if cj_i < cj_n {{
            cj_v = {opn}(cj_v, cj_in[cj_i]);
        }}
    }}"
        );
        let tiles_name = format!("cj_scan_tiles_{t}_{}", op.name);
        let tiles = format!(
            "fn {tiles_name}(cj_in: &[{t}], cj_totals: &mut [{t}], cj_identity: {t}) {{
    {prologue}
    {fold}
    {scan}
    if cj_tid == 0 {{
        cj_totals[block_idx().x as usize] = cj_total;
    }}
}}"
        );
        let carry_name = format!("cj_scan_carry_{t}_{}", op.name);
        let carry = format!(
            "fn {carry_name}(cj_totals: &mut [{t}], cj_identity: {t}) {{
    {prologue}
    let cj_count = cj_totals.len();
    let mut cj_carry = cj_identity;
    let mut cj_start = 0usize;
    while cj_start < cj_count {{
        let cj_i = cj_start + cj_tid;
        let mut cj_v = if cj_i < cj_count {{ cj_totals[cj_i] }} else {{ cj_identity }};
        {scan}
        if cj_i < cj_count {{
            cj_totals[cj_i] = {opn}(cj_carry, cj_excl);
        }}
        cj_carry = {opn}(cj_carry, cj_total);
        cj_start += {block};
    }}
}}"
        );
        let down_name = format!("cj_scan_down_{t}_{}", op.name);
        let down = format!(
            "fn {down_name}(cj_in: &[{t}], cj_prefix: &[{t}], cj_out: &mut [{t}], cj_identity: {t}, cj_exclusive: bool) {{
    {prologue}
    {fold}
    {scan}
    let mut cj_run = {opn}(cj_prefix[block_idx().x as usize], cj_excl);
    for cj_k in 0..{ITEMS}usize {{
        let cj_i = cj_base + cj_k;
        if cj_i < cj_n {{
            let cj_x = cj_in[cj_i];
            if cj_exclusive {{
                cj_out[cj_i] = cj_run;
                cj_run = {opn}(cj_run, cj_x);
            }} else {{
                cj_run = {opn}(cj_run, cj_x);
                cj_out[cj_i] = cj_run;
            }}
        }}
    }}
}}"
        );
        ScanKernels {
            tiles: synth::kernel(&tiles_name, tiles, &[op]),
            carry: synth::kernel(&carry_name, carry, &[op]),
            down: synth::kernel(&down_name, down, &[op]),
        }
    }
}

fn compact_with<T, I>(
    stream: Option<&Stream>,
    input: &I,
    keep: &'static FnSource,
) -> Result<DeviceArray<T>>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
{
    let n = input.len();
    let target = Target::new(stream, input.home())?;
    if n == 0 {
        return DeviceArray::zeros_on(&target.device, 0);
    }
    if u32::try_from(n).is_err() {
        return Err(Error::ArgumentMismatch {
            kernel: "cudajit::compact".into(),
            detail: format!("{n} elements exceed the {} compact takes", u32::MAX),
        });
    }
    let staged = input.stage(&target.device)?;
    let t = T::SCALAR.rust_name();
    let grid = target.stride_grid(n, 4);

    let kernels = CompactKernels::new(t, keep);
    let mut flags = DeviceArray::<u32>::zeros_on(&target.device, n)?;
    let mut args = [
        SliceArg::<T>::into_kernel_arg(&*staged),
        SliceArgMut::<u32>::into_kernel_arg(&mut flags),
    ];
    let k = kernels.flags;
    crate::launch::launch(k.source, k.cache, target.config(grid), &mut args)?;

    let mut positions = DeviceArray::<u32>::zeros_on(&target.device, n)?;
    let add = Builtin::Add.source::<u32>();
    scan_into(&target, &flags, &mut positions, add, u32::ZERO, true)?;

    // The count: the last position plus the last flag, read back to size the output.
    let mut count = DeviceArray::<u32>::zeros_on(&target.device, 1)?;
    let mut args = [
        SliceArg::<u32>::into_kernel_arg(&flags),
        SliceArg::<u32>::into_kernel_arg(&positions),
        SliceArgMut::<u32>::into_kernel_arg(&mut count),
    ];
    let k = kernels.count;
    crate::launch::launch(k.source, k.cache, target.config(1), &mut args)?;
    let kept = count.to_host()?[0] as usize;

    let mut out = DeviceArray::<T>::zeros_on(&target.device, kept)?;
    if kept == 0 {
        return Ok(out);
    }
    let mut args = [
        SliceArg::<T>::into_kernel_arg(&*staged),
        SliceArg::<u32>::into_kernel_arg(&flags),
        SliceArg::<u32>::into_kernel_arg(&positions),
        SliceArgMut::<T>::into_kernel_arg(&mut out),
    ];
    let k = kernels.scatter;
    crate::launch::launch(k.source, k.cache, target.config(grid), &mut args)?;
    Ok(out)
}

/// Compaction's own kernels (the scan's are [`ScanKernels`]).
pub(super) struct CompactKernels {
    /// `flags[i] = keep(x[i]) as u32`.
    pub flags: synth::Kernel,
    /// `count[0] = positions[n - 1] + flags[n - 1]`.
    pub count: synth::Kernel,
    /// `out[positions[i]] = x[i]` where `flags[i]`.
    pub scatter: synth::Kernel,
}

impl CompactKernels {
    pub fn new(t: &str, keep: &'static FnSource) -> Self {
        let kn = synth::callee(keep, t);
        let flags_name = format!("cj_compact_flags_{t}_{}", keep.name);
        let flags_kernel = synth::kernel(
            &flags_name,
            format!(
                "fn {flags_name}(cj_in: &[{t}], cj_flags: &mut [u32]) {{
        let cj_stride = grid_size(1);
        let mut cj_i = grid(1);
        while cj_i < cj_in.len() {{
            cj_flags[cj_i] = if {kn}(cj_in[cj_i]) {{ 1u32 }} else {{ 0u32 }};
            cj_i += cj_stride;
        }}
}}"
            ),
            &[keep],
        );
        let count_kernel = synth::kernel(
            "cj_compact_count",
            "fn cj_compact_count(cj_flags: &[u32], cj_positions: &[u32], cj_count: &mut [u32]) {
        let cj_last = cj_flags.len() - 1;
        if grid(1) == 0 {
            cj_count[0] = cj_positions[cj_last] + cj_flags[cj_last];
        }
}"
            .to_string(),
            &[],
        );
        let scatter_name = format!("cj_compact_scatter_{t}");
        let scatter = synth::kernel(
            &scatter_name,
            format!(
                "fn {scatter_name}(cj_in: &[{t}], cj_flags: &[u32], cj_positions: &[u32], cj_out: &mut [{t}]) {{
        let cj_stride = grid_size(1);
        let mut cj_i = grid(1);
        while cj_i < cj_in.len() {{
            if cj_flags[cj_i] != 0 {{
                cj_out[cj_positions[cj_i] as usize] = cj_in[cj_i];
            }}
            cj_i += cj_stride;
        }}
}}"
            ),
            &[],
        );
        CompactKernels {
            flags: flags_kernel,
            count: count_kernel,
            scatter,
        }
    }
}
