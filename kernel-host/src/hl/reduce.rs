//! Reductions: a grid-stride pass in which each thread folds its elements into four
//! accumulators and each block folds its threads' values by a tree in shared memory
//! into one partial, then the same kernel on one block over the partials. Two passes
//! and a fixed grid per device keep the order of a float reduction, hence its result,
//! the same from run to run (no atomics).

use kernel_device::source::FnSource;

use super::numeric::{Builtin, Numeric};
use super::{scratch, synth, Input, IntoDeviceFn, Target};
use crate::device::stream::Stream;
use crate::error::{Error, Result};
use crate::launch::args::KernelArg;
use crate::launch::args::{SliceArg, SliceArgMut};
use crate::memory::array::DeviceArray;
use crate::memory::elem::{DeviceElem, DeviceScalar};

/// Elements each thread takes at least before the grid stops growing with `n`.
pub(super) const PER_THREAD: usize = 8;

/// Folds `input` with `op`, a `#[device]` function passed as `device_fn!(op)`, from
/// `identity`: `op(identity, x) == x` for every `x`. The order of the fold is not the
/// input's (threads take strided elements), so `op` must be associative and
/// commutative (`+`, `*`, `min`, `max`, an argmax with ties broken by index...), as
/// for Numba's `cuda.reduce` and CuPy's `ReductionKernel`. An empty input gives
/// `identity`.
pub fn reduce<T, I, F>(input: &I, op: impl IntoDeviceFn<F>, identity: T) -> Result<T>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    reduce_with(None, input, None, op.into_device_fn().source(), identity)
}

/// [`reduce`] leaving the result on the device, in `out` (one element): nothing is
/// read back and nothing waits, like CuPy's reductions, which return a 0-d device
/// array. `Err` when `out` does not hold exactly one element.
pub fn reduce_into<T, I, F>(
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
    reduce_into_with(
        None,
        input,
        None,
        op.into_device_fn().source(),
        identity,
        out,
    )
}

/// [`reduce_into`] on `stream`.
pub fn reduce_into_on<T, I, F>(
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
    reduce_into_with(
        Some(stream),
        input,
        None,
        op.into_device_fn().source(),
        identity,
        out,
    )
}

/// [`reduce`] on `stream` (and its device).
pub fn reduce_on<T, I, F>(
    stream: &Stream,
    input: &I,
    op: impl IntoDeviceFn<F>,
    identity: T,
) -> Result<T>
where
    T: DeviceScalar,
    I: Input<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    reduce_with(
        Some(stream),
        input,
        None,
        op.into_device_fn().source(),
        identity,
    )
}

/// Folds `map(x)` for every `x` of `input` with `op` from `identity` (PyCUDA's
/// `ReductionKernel` with a `map_expr`): e.g. a sum of squares without the squares'
/// array. `op` as for [`reduce`].
pub fn map_reduce<T, U, I, M, F>(
    input: &I,
    map: impl IntoDeviceFn<M>,
    op: impl IntoDeviceFn<F>,
    identity: U,
) -> Result<U>
where
    T: DeviceScalar,
    U: DeviceScalar,
    I: Input<T> + ?Sized,
    M: Fn(T) -> U + Copy,
    F: Fn(U, U) -> U + Copy,
{
    reduce_with(
        None,
        input,
        Some(map.into_device_fn().source()),
        op.into_device_fn().source(),
        identity,
    )
}

/// [`map_reduce`] on `stream`.
pub fn map_reduce_on<T, U, I, M, F>(
    stream: &Stream,
    input: &I,
    map: impl IntoDeviceFn<M>,
    op: impl IntoDeviceFn<F>,
    identity: U,
) -> Result<U>
where
    T: DeviceScalar,
    U: DeviceScalar,
    I: Input<T> + ?Sized,
    M: Fn(T) -> U + Copy,
    F: Fn(U, U) -> U + Copy,
{
    reduce_with(
        Some(stream),
        input,
        Some(map.into_device_fn().source()),
        op.into_device_fn().source(),
        identity,
    )
}

macro_rules! builtin_reductions {
    ($($(#[$doc:meta])* $name:ident, $name_on:ident, $into:ident, $into_on:ident, $op:ident, $identity:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name<T: Numeric, I: Input<T> + ?Sized>(input: &I) -> Result<T> {
            reduce_with(None, input, None, Builtin::$op.source::<T>(), T::$identity)
        }

        #[doc = concat!("[`", stringify!($name), "`] on `stream`.")]
        pub fn $name_on<T: Numeric, I: Input<T> + ?Sized>(stream: &Stream, input: &I) -> Result<T> {
            reduce_with(Some(stream), input, None, Builtin::$op.source::<T>(), T::$identity)
        }

        #[doc = concat!("[`", stringify!($name), "`] into `out` (one element) on the device, as [`reduce_into`].")]
        pub fn $into<T: Numeric, I: Input<T> + ?Sized>(input: &I, out: &mut DeviceArray<T>) -> Result<()> {
            reduce_into_with(None, input, None, Builtin::$op.source::<T>(), T::$identity, out)
        }

        #[doc = concat!("[`", stringify!($into), "`] on `stream`.")]
        pub fn $into_on<T: Numeric, I: Input<T> + ?Sized>(
            stream: &Stream,
            input: &I,
            out: &mut DeviceArray<T>,
        ) -> Result<()> {
            reduce_into_with(Some(stream), input, None, Builtin::$op.source::<T>(), T::$identity, out)
        }
    )*};
}

builtin_reductions! {
    /// The sum of `input`'s elements (wrapping for integers, as kernels add); 0 when empty.
    sum, sum_on, sum_into, sum_into_on, Add, ZERO;
    /// The product of `input`'s elements (wrapping for integers); 1 when empty.
    product, product_on, product_into, product_into_on, Mul, ONE;
    /// The smallest element (NaNs skipped); the type's largest value (`+inf`) when empty.
    min, min_on, min_into, min_into_on, Min, HIGHEST;
    /// The largest element (NaNs skipped); the type's smallest value (`-inf`) when empty.
    max, max_on, max_into, max_into_on, Max, LOWEST;
}

fn reduce_with<T, U, I>(
    stream: Option<&Stream>,
    input: &I,
    map: Option<&'static FnSource>,
    op: &'static FnSource,
    identity: U,
) -> Result<U>
where
    T: DeviceScalar,
    U: DeviceScalar,
    I: Input<T> + ?Sized,
{
    if input.is_empty() {
        return Ok(identity);
    }
    let target = Target::new(stream, input.home())?;
    let staged = input.stage(&target.device)?;
    let key = scratch::Key::new::<Partials<U>>(&target.device, stream);
    let mut set = match scratch::take::<Partials<U>>(key) {
        Some(set) => set,
        None => Partials::new(&target)?,
    };
    let Partials { partials, total } = &mut set;
    fold(&target, &staged, map, op, identity, partials, total)?;
    // One element back to the host, after the two kernels (a synchronous copy).
    let value = total.to_host()?[0];
    scratch::put(key, set);
    Ok(value)
}

/// The result of [`reduce_into`] and friends: into `out`, one element on the device.
fn reduce_into_with<T, U, I>(
    stream: Option<&Stream>,
    input: &I,
    map: Option<&'static FnSource>,
    op: &'static FnSource,
    identity: U,
    out: &mut DeviceArray<U>,
) -> Result<()>
where
    T: DeviceScalar,
    U: DeviceScalar,
    I: Input<T> + ?Sized,
{
    if out.len() != 1 {
        return Err(Error::ArgumentMismatch {
            kernel: "cudajit::reduce_into".into(),
            detail: format!(
                "`out` holds {} elements; a reduction writes exactly 1",
                out.len()
            ),
        });
    }
    let target = Target::new(stream, input.home().or(Some(out.device())))?;
    let key = scratch::Key::new::<Partials<U>>(&target.device, stream);
    let mut set = match scratch::take::<Partials<U>>(key) {
        Some(set) => set,
        None => Partials::new(&target)?,
    };
    if input.is_empty() {
        out.copy_from_host(&[identity])?;
    } else {
        let staged = input.stage(&target.device)?;
        fold(&target, &staged, map, op, identity, &mut set.partials, out)?;
    }
    scratch::put(key, set);
    Ok(())
}

/// A reduction's kept buffers: one partial per block of the widest grid on the
/// device, and the one-element total [`reduce`] reads back.
pub(super) struct Partials<U: DeviceElem> {
    pub partials: DeviceArray<U>,
    pub total: DeviceArray<U>,
}

impl<U: DeviceElem> Partials<U> {
    pub fn new(target: &Target<'_>) -> Result<Self> {
        let widest = target.stride_grid(usize::MAX, PER_THREAD) as usize;
        Ok(Partials {
            partials: DeviceArray::zeros_on(&target.device, widest)?,
            total: DeviceArray::zeros_on(&target.device, 1)?,
        })
    }
}

/// Folds `input` (not empty) into `out[0]`: one partial per block, then one block
/// over the partials (a fixed grid and order: the same bits every run). Every block
/// writes its partial, so nothing is cleared first.
fn fold<T: DeviceScalar, U: DeviceScalar>(
    target: &Target<'_>,
    input: &DeviceArray<T>,
    map: Option<&'static FnSource>,
    op: &'static FnSource,
    identity: U,
    partials: &mut DeviceArray<U>,
    out: &mut DeviceArray<U>,
) -> Result<()> {
    let grid = target.stride_grid(input.len(), PER_THREAD);
    let first = fold_kernel::<T, U>(map, op);
    if grid == 1 {
        let mut args = [
            SliceArg::<T>::into_kernel_arg(input),
            SliceArgMut::<U>::into_kernel_arg(out),
            KernelArg::scalar(identity),
        ];
        return crate::launch::launch(first.source, first.cache, target.config(1), &mut args);
    }
    let mut args = [
        SliceArg::<T>::into_kernel_arg(input),
        SliceArgMut::<U>::into_kernel_arg(partials.view_mut(..grid as usize)?),
        KernelArg::scalar(identity),
    ];
    crate::launch::launch(first.source, first.cache, target.config(grid), &mut args)?;
    let second = fold_kernel::<U, U>(None, op);
    let mut args = [
        SliceArg::<U>::into_kernel_arg(partials.view(..grid as usize)?),
        SliceArgMut::<U>::into_kernel_arg(out),
        KernelArg::scalar(identity),
    ];
    crate::launch::launch(second.source, second.cache, target.config(1), &mut args)
}

/// The kernel folding `map(x)` (or `x`) of its input into one value per block.
pub(super) fn fold_kernel<T: DeviceScalar, U: DeviceScalar>(
    map: Option<&'static FnSource>,
    op: &'static FnSource,
) -> synth::Kernel {
    let (t, u) = (T::SCALAR.rust_name(), U::SCALAR.rust_name());
    let map = map.map(|m| (m, MapForm::Value));
    fold_kernel_of(t, &ElemText::scalar(u), map, op)
}

/// What a reduction's map takes: the element, or its index and the element.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum MapForm {
    Value,
    Indexed,
}

/// How a reduction kernel's text names the folded type and keeps values of it in
/// shared memory: a scalar in one array, a `#[derive(DeviceCopy)]` struct field by
/// field in one array of each field's scalar (shared arrays hold scalars).
pub(super) struct ElemText {
    /// The type as the text names it (`f32`, `ValueIndex`).
    pub name: String,
    /// A struct's fields (name, scalar type); `None` for a scalar.
    pub fields: Option<Vec<(String, &'static str)>>,
    /// The struct items the text names (a struct's own, from the user's source).
    pub structs: &'static [kernel_device::source::StructItem],
}

impl ElemText {
    pub fn scalar(name: &str) -> Self {
        ElemText {
            name: name.to_string(),
            fields: None,
            structs: &[],
        }
    }

    fn shared_decl(&self) -> String {
        let block = synth::BLOCK;
        match &self.fields {
            None => format!("let cj_sm = shared_array::<[{}; {block}]>();", self.name),
            Some(fields) => fields
                .iter()
                .enumerate()
                .map(|(k, (_, s))| format!("let cj_sm_{k} = shared_array::<[{s}; {block}]>();"))
                .collect::<Vec<_>>()
                .join("\n    "),
        }
    }

    /// Statements storing `value` at `index` of the shared arrays.
    fn store(&self, index: &str, value: &str) -> String {
        match &self.fields {
            None => format!("cj_sm[{index}] = {value};"),
            Some(fields) => {
                let mut out = format!("let cj_st = {value};");
                for (k, (f, _)) in fields.iter().enumerate() {
                    out.push_str(&format!(" cj_sm_{k}[{index}] = cj_st.{f};"));
                }
                out
            }
        }
    }

    /// The expression reading the value at `index` of the shared arrays.
    fn load(&self, index: &str) -> String {
        match &self.fields {
            None => format!("cj_sm[{index}]"),
            Some(fields) => {
                let inits: Vec<String> = fields
                    .iter()
                    .enumerate()
                    .map(|(k, (f, _))| format!("{f}: cj_sm_{k}[{index}]"))
                    .collect();
                format!("{} {{ {} }}", self.name, inits.join(", "))
            }
        }
    }
}

/// The kernel folding `map(x)`, `map(i, x)` or `x` of its input (of scalar type `t`,
/// or of the folded type itself when there is no map) into one value per block.
pub(super) fn fold_kernel_of(
    t: &str,
    u: &ElemText,
    map: Option<(&'static FnSource, MapForm)>,
    op: &'static FnSource,
) -> synth::Kernel {
    let opn = synth::callee(op, &u.name);
    let load = |index: &str| match map {
        Some((m, MapForm::Value)) => format!("{}(cj_in[{index}])", synth::callee(m, t)),
        Some((m, MapForm::Indexed)) => {
            format!("{}({index}, cj_in[{index}])", synth::callee(m, t))
        }
        None => format!("cj_in[{index}]"),
    };
    // The type name without a path, for the kernel's own name.
    let short = u.name.rsplit("::").next().unwrap_or(&u.name);
    let name = match map {
        Some((m, MapForm::Value)) => format!("cj_map_reduce_{t}_{short}_{}_{}", m.name, op.name),
        Some((m, MapForm::Indexed)) => {
            format!("cj_indexed_reduce_{t}_{short}_{}_{}", m.name, op.name)
        }
        None => format!("cj_reduce_{short}_{}", op.name),
    };
    let input = if map.is_some() { t } else { u.name.as_str() };
    let un = &u.name;
    let text = format!(
        "fn {name}(cj_in: &[{input}], cj_out: &mut [{un}], cj_identity: {un}) {{
    {shared}
    let cj_tid = thread_idx().x as usize;
    let cj_n = cj_in.len();
    let cj_stride = grid_size(1);
    let mut cj_i = grid(1);
    let mut cj_a0 = cj_identity;
    let mut cj_a1 = cj_identity;
    let mut cj_a2 = cj_identity;
    let mut cj_a3 = cj_identity;
    while cj_i + 3 * cj_stride < cj_n {{
        cj_a0 = {opn}(cj_a0, {l0});
        cj_a1 = {opn}(cj_a1, {l1});
        cj_a2 = {opn}(cj_a2, {l2});
        cj_a3 = {opn}(cj_a3, {l3});
        cj_i += 4 * cj_stride;
    }}
    while cj_i < cj_n {{
        cj_a0 = {opn}(cj_a0, {l0});
        cj_i += cj_stride;
    }}
    let cj_own = {opn}({opn}(cj_a0, cj_a1), {opn}(cj_a2, cj_a3));
    {store_own}
    sync_threads();
    let mut cj_s = {half}usize;
    while cj_s > 0 {{
        if cj_tid < cj_s {{
            let cj_m = {opn}({load_tid}, {load_other});
            {store_m}
        }}
        sync_threads();
        cj_s >>= 1;
    }}
    if cj_tid == 0 {{
        cj_out[block_idx().x as usize] = {load_first};
    }}
}}",
        shared = u.shared_decl(),
        l0 = load("cj_i"),
        l1 = load("cj_i + cj_stride"),
        l2 = load("cj_i + 2 * cj_stride"),
        l3 = load("cj_i + 3 * cj_stride"),
        store_own = u.store("cj_tid", "cj_own"),
        load_tid = u.load("cj_tid"),
        load_other = u.load("cj_tid + cj_s"),
        store_m = u.store("cj_tid", "cj_m"),
        load_first = u.load("0"),
        half = synth::BLOCK / 2,
    );
    let deps: Vec<&'static FnSource> = map.into_iter().map(|(m, _)| m).chain([op]).collect();
    synth::kernel_of(&name, text, &deps, None, u.structs)
}
