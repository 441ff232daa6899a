//! Elementwise maps (GPU ufuncs): a grid-stride kernel applying a `#[device]`
//! function to each element (or each pair of elements) of equal-length inputs.

use kernel_device::source::FnSource;

use super::{length_mismatch, synth, DeviceFn, Input, IntoDeviceFn, Target};
use crate::device::stream::Stream;
use crate::error::Result;
use crate::launch::args::{KernelArg, SliceArg, SliceArgMut};
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

/// Elements each thread takes at least before the grid stops growing with `n`.
const PER_THREAD: usize = 4;

/// `f(x)` for every element `x` of `input`, as a new array (Numba's
/// `@vectorize(target='cuda')` applied to one array).
pub fn map<A, R, I, F>(input: &I, f: impl IntoDeviceFn<F>) -> Result<DeviceArray<R>>
where
    A: DeviceScalar,
    R: DeviceScalar,
    I: Input<A> + ?Sized,
    F: Fn(A) -> R + Copy,
{
    map_on_opt(None, input, f.into_device_fn())
}

/// [`map`] on `stream`.
pub fn map_on<A, R, I, F>(
    stream: &Stream,
    input: &I,
    f: impl IntoDeviceFn<F>,
) -> Result<DeviceArray<R>>
where
    A: DeviceScalar,
    R: DeviceScalar,
    I: Input<A> + ?Sized,
    F: Fn(A) -> R + Copy,
{
    map_on_opt(Some(stream), input, f.into_device_fn())
}

/// `out[i] = f(input[i])`; `Err` naming both lengths when they differ.
pub fn map_into<A, R, I, F>(
    input: &I,
    f: impl IntoDeviceFn<F>,
    out: &mut DeviceArray<R>,
) -> Result<()>
where
    A: DeviceScalar,
    R: DeviceScalar,
    I: Input<A> + ?Sized,
    F: Fn(A) -> R + Copy,
{
    map_into_opt(None, input, f.into_device_fn(), out)
}

/// [`map_into`] on `stream`.
pub fn map_into_on<A, R, I, F>(
    stream: &Stream,
    input: &I,
    f: impl IntoDeviceFn<F>,
    out: &mut DeviceArray<R>,
) -> Result<()>
where
    A: DeviceScalar,
    R: DeviceScalar,
    I: Input<A> + ?Sized,
    F: Fn(A) -> R + Copy,
{
    map_into_opt(Some(stream), input, f.into_device_fn(), out)
}

/// `f(a[i], b[i])` for every `i`, as a new array; `Err` naming both lengths when
/// `a` and `b` differ.
pub fn map2<A, B, R, IA, IB, F>(a: &IA, b: &IB, f: impl IntoDeviceFn<F>) -> Result<DeviceArray<R>>
where
    A: DeviceScalar,
    B: DeviceScalar,
    R: DeviceScalar,
    IA: Input<A> + ?Sized,
    IB: Input<B> + ?Sized,
    F: Fn(A, B) -> R + Copy,
{
    map2_on_opt(None, a, b, f.into_device_fn())
}

/// [`map2`] on `stream`.
pub fn map2_on<A, B, R, IA, IB, F>(
    stream: &Stream,
    a: &IA,
    b: &IB,
    f: impl IntoDeviceFn<F>,
) -> Result<DeviceArray<R>>
where
    A: DeviceScalar,
    B: DeviceScalar,
    R: DeviceScalar,
    IA: Input<A> + ?Sized,
    IB: Input<B> + ?Sized,
    F: Fn(A, B) -> R + Copy,
{
    map2_on_opt(Some(stream), a, b, f.into_device_fn())
}

/// `out[i] = f(a[i], b[i])`; `Err` naming the lengths when any differ.
pub fn map2_into<A, B, R, IA, IB, F>(
    a: &IA,
    b: &IB,
    f: impl IntoDeviceFn<F>,
    out: &mut DeviceArray<R>,
) -> Result<()>
where
    A: DeviceScalar,
    B: DeviceScalar,
    R: DeviceScalar,
    IA: Input<A> + ?Sized,
    IB: Input<B> + ?Sized,
    F: Fn(A, B) -> R + Copy,
{
    map2_into_opt(None, a, b, f.into_device_fn(), out)
}

/// [`map2_into`] on `stream`.
pub fn map2_into_on<A, B, R, IA, IB, F>(
    stream: &Stream,
    a: &IA,
    b: &IB,
    f: impl IntoDeviceFn<F>,
    out: &mut DeviceArray<R>,
) -> Result<()>
where
    A: DeviceScalar,
    B: DeviceScalar,
    R: DeviceScalar,
    IA: Input<A> + ?Sized,
    IB: Input<B> + ?Sized,
    F: Fn(A, B) -> R + Copy,
{
    map2_into_opt(Some(stream), a, b, f.into_device_fn(), out)
}

fn map_on_opt<A: DeviceScalar, R: DeviceScalar, I: Input<A> + ?Sized, F>(
    stream: Option<&Stream>,
    input: &I,
    f: DeviceFn<F>,
) -> Result<DeviceArray<R>> {
    let target = Target::new(stream, input.home())?;
    let mut out = DeviceArray::zeros_on(&target.device, input.len())?;
    let a = Operand::of(input, &target)?;
    apply::<A, A, R>(&target, &[&a], f.source(), &mut out)?;
    Ok(out)
}

fn map_into_opt<A: DeviceScalar, R: DeviceScalar, I: Input<A> + ?Sized, F>(
    stream: Option<&Stream>,
    input: &I,
    f: DeviceFn<F>,
    out: &mut DeviceArray<R>,
) -> Result<()> {
    if input.broadcast().is_none() && input.len() != out.len() {
        return Err(length_mismatch(
            "map_into",
            [("input", input.len()), ("out", out.len())],
        ));
    }
    let target = Target::new(stream, input.home().or(Some(out.device())))?;
    let a = Operand::of(input, &target)?;
    apply::<A, A, R>(&target, &[&a], f.source(), out)
}

fn map2_on_opt<A, B, R, IA, IB, F>(
    stream: Option<&Stream>,
    a: &IA,
    b: &IB,
    f: DeviceFn<F>,
) -> Result<DeviceArray<R>>
where
    A: DeviceScalar,
    B: DeviceScalar,
    R: DeviceScalar,
    IA: Input<A> + ?Sized,
    IB: Input<B> + ?Sized,
{
    let n = broadcast_len("map2", a, b)?;
    let target = Target::new(stream, a.home().or(b.home()))?;
    let mut out = DeviceArray::zeros_on(&target.device, n)?;
    let (oa, ob) = (Operand::of(a, &target)?, Operand::of(b, &target)?);
    apply::<A, B, R>(&target, &[&oa, &ob], f.source(), &mut out)?;
    Ok(out)
}

fn map2_into_opt<A, B, R, IA, IB, F>(
    stream: Option<&Stream>,
    a: &IA,
    b: &IB,
    f: DeviceFn<F>,
    out: &mut DeviceArray<R>,
) -> Result<()>
where
    A: DeviceScalar,
    B: DeviceScalar,
    R: DeviceScalar,
    IA: Input<A> + ?Sized,
    IB: Input<B> + ?Sized,
{
    let n = broadcast_len("map2_into", a, b)?;
    let both_scalars = a.broadcast().is_some() && b.broadcast().is_some();
    if !both_scalars && n != out.len() {
        let (name, len) = if a.broadcast().is_none() {
            ("a", a.len())
        } else {
            ("b", b.len())
        };
        return Err(length_mismatch(
            "map2_into",
            [(name, len), ("out", out.len())],
        ));
    }
    let target = Target::new(stream, a.home().or(b.home()).or(Some(out.device())))?;
    let (oa, ob) = (Operand::of(a, &target)?, Operand::of(b, &target)?);
    apply::<A, B, R>(&target, &[&oa, &ob], f.source(), out)
}

/// The length of `f(a, b)` elementwise: the arrays' common length, or the array's
/// when the other input is a scalar (broadcast); `Err` naming both when they differ.
fn broadcast_len<A, B, IA, IB>(operation: &str, a: &IA, b: &IB) -> Result<usize>
where
    A: DeviceScalar,
    B: DeviceScalar,
    IA: Input<A> + ?Sized,
    IB: Input<B> + ?Sized,
{
    if let (Some(sa), Some(sb)) = (a.nd_shape(), b.nd_shape()) {
        if sa != sb {
            return Err(crate::error::Error::ArgumentMismatch {
                kernel: format!("cudajit::{operation}"),
                detail: format!(
                    "`a` has the shape {sa:?} but `b` has the shape {sb:?}; they must be equal"
                ),
            });
        }
    }
    match (a.broadcast(), b.broadcast()) {
        (Some(_), None) => Ok(b.len()),
        (None, Some(_)) => Ok(a.len()),
        _ if a.len() != b.len() => {
            Err(length_mismatch(operation, [("a", a.len()), ("b", b.len())]))
        }
        _ => Ok(a.len()),
    }
}

/// One input of a map on the device: an array (read at each index) or a scalar
/// (passed by value, the same for every index).
enum Operand<'a, T: DeviceScalar> {
    Array(super::Staged<'a, T>),
    Scalar(T),
}

impl<'a, T: DeviceScalar> Operand<'a, T> {
    fn of<I: Input<T> + ?Sized>(input: &'a I, target: &Target<'_>) -> Result<Self> {
        Ok(match input.broadcast() {
            Some(v) => Operand::Scalar(v),
            None => Operand::Array(input.stage(&target.device)?),
        })
    }

    fn is_scalar(&self) -> bool {
        matches!(self, Operand::Scalar(_))
    }
}

/// An operand as a kernel argument, whatever its element type.
trait AsArg {
    fn arg(&self) -> KernelArg<'_>;
    fn scalar(&self) -> bool;
}

impl<T: DeviceScalar> AsArg for Operand<'_, T> {
    fn arg(&self) -> KernelArg<'_> {
        match self {
            Operand::Array(staged) => SliceArg::<T>::into_kernel_arg(&**staged),
            Operand::Scalar(v) => KernelArg::scalar(*v),
        }
    }
    fn scalar(&self) -> bool {
        self.is_scalar()
    }
}

/// Launches `out[i] = f(in0[i](, in1[i]))` over `out.len()` elements (all array inputs
/// that long; scalar inputs broadcast). `A` and `B` are the inputs' element types (`B`
/// unused with one input).
fn apply<A: DeviceScalar, B: DeviceScalar, R: DeviceScalar>(
    target: &Target<'_>,
    operands: &[&dyn AsArg],
    f: &'static FnSource,
    out: &mut DeviceArray<R>,
) -> Result<()> {
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let (a, b) = (A::SCALAR.rust_name(), B::SCALAR.rust_name());
    let types = if operands.len() == 1 {
        vec![a]
    } else {
        vec![a, b]
    };
    let inputs: Vec<(&str, bool)> = types
        .iter()
        .zip(operands)
        .map(|(t, o)| (*t, o.scalar()))
        .collect();
    let kernel = map_kernel_of(&inputs, R::SCALAR.rust_name(), f);
    let mut args: Vec<KernelArg<'_>> = operands.iter().map(|o| o.arg()).collect();
    args.push(SliceArgMut::<R>::into_kernel_arg(out));
    let grid = target.stride_grid(n, PER_THREAD);
    crate::launch::launch(kernel.source, kernel.cache, target.config(grid), &mut args)
}

/// [`map_kernel_of`] with every input an array.
#[cfg(test)]
pub(super) fn map_kernel(inputs: &[&str], r: &str, f: &'static FnSource) -> synth::Kernel {
    let arrays: Vec<(&str, bool)> = inputs.iter().map(|t| (*t, false)).collect();
    map_kernel_of(&arrays, r, f)
}

/// The kernel `out[i] = f(in0[i](, in1[i]))` for inputs (element type, broadcast
/// scalar?) (one or two) and results of type `r`; a scalar input is a by-value
/// parameter read at every index.
pub(super) fn map_kernel_of(
    inputs: &[(&str, bool)],
    r: &str,
    f: &'static FnSource,
) -> synth::Kernel {
    let fname = f.name;
    let call_f = synth::callee(f, inputs.first().map_or(r, |i| i.0));
    let operand = |(t, scalar): (&str, bool), name: &str| {
        if scalar {
            (format!("{name}: {t}"), name.to_string(), format!("s{t}"))
        } else {
            (
                format!("{name}: &[{t}]"),
                format!("{name}[cj_i]"),
                t.to_string(),
            )
        }
    };
    let (name, params, call) = match inputs {
        [a] => {
            let (pa, ea, ka) = operand(*a, "cj_a");
            (
                format!("cj_map_{ka}_{r}_{fname}"),
                pa,
                format!("{call_f}({ea})"),
            )
        }
        [a, b, ..] => {
            let (pa, ea, ka) = operand(*a, "cj_a");
            let (pb, eb, kb) = operand(*b, "cj_b");
            (
                format!("cj_map2_{ka}_{kb}_{r}_{fname}"),
                format!("{pa}, {pb}"),
                format!("{call_f}({ea}, {eb})"),
            )
        }
        [] => unreachable!("a map has one or two inputs"),
    };
    let text = format!(
        "fn {name}({params}, cj_out: &mut [{r}]) {{
    let cj_n = cj_out.len();
    let cj_stride = grid_size(1);
    let mut cj_i = grid(1);
    while cj_i < cj_n {{
        cj_out[cj_i] = {call};
        cj_i += cj_stride;
    }}
}}"
    );
    synth::kernel(&name, text, &[f])
}
