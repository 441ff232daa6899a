//! Elementwise maps (GPU ufuncs): a grid-stride kernel applying a `#[device]`
//! function to each element (or each pair of elements) of equal-length inputs.

use kernel_device::source::FnSource;

use super::{length_mismatch, synth, DeviceFn, Input, Target};
use crate::args::{DeviceScalar, KernelArg, SliceArg, SliceArgMut};
use crate::array::DeviceArray;
use crate::error::Result;
use crate::stream::Stream;

/// Elements each thread takes at least before the grid stops growing with `n`.
const PER_THREAD: usize = 4;

/// `f(x)` for every element `x` of `input`, as a new array (Numba's
/// `@vectorize(target='cuda')` applied to one array).
pub fn map<A, R, I, F>(input: &I, f: DeviceFn<F>) -> Result<DeviceArray<R>>
where
    A: DeviceScalar,
    R: DeviceScalar,
    I: Input<A> + ?Sized,
    F: Fn(A) -> R + Copy,
{
    map_on_opt(None, input, f)
}

/// [`map`] on `stream`.
pub fn map_on<A, R, I, F>(stream: &Stream, input: &I, f: DeviceFn<F>) -> Result<DeviceArray<R>>
where
    A: DeviceScalar,
    R: DeviceScalar,
    I: Input<A> + ?Sized,
    F: Fn(A) -> R + Copy,
{
    map_on_opt(Some(stream), input, f)
}

/// `out[i] = f(input[i])`; `Err` naming both lengths when they differ.
pub fn map_into<A, R, I, F>(input: &I, f: DeviceFn<F>, out: &mut DeviceArray<R>) -> Result<()>
where
    A: DeviceScalar,
    R: DeviceScalar,
    I: Input<A> + ?Sized,
    F: Fn(A) -> R + Copy,
{
    map_into_opt(None, input, f, out)
}

/// [`map_into`] on `stream`.
pub fn map_into_on<A, R, I, F>(
    stream: &Stream,
    input: &I,
    f: DeviceFn<F>,
    out: &mut DeviceArray<R>,
) -> Result<()>
where
    A: DeviceScalar,
    R: DeviceScalar,
    I: Input<A> + ?Sized,
    F: Fn(A) -> R + Copy,
{
    map_into_opt(Some(stream), input, f, out)
}

/// `f(a[i], b[i])` for every `i`, as a new array; `Err` naming both lengths when
/// `a` and `b` differ.
pub fn map2<A, B, R, IA, IB, F>(a: &IA, b: &IB, f: DeviceFn<F>) -> Result<DeviceArray<R>>
where
    A: DeviceScalar,
    B: DeviceScalar,
    R: DeviceScalar,
    IA: Input<A> + ?Sized,
    IB: Input<B> + ?Sized,
    F: Fn(A, B) -> R + Copy,
{
    map2_on_opt(None, a, b, f)
}

/// [`map2`] on `stream`.
pub fn map2_on<A, B, R, IA, IB, F>(
    stream: &Stream,
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
    F: Fn(A, B) -> R + Copy,
{
    map2_on_opt(Some(stream), a, b, f)
}

/// `out[i] = f(a[i], b[i])`; `Err` naming the lengths when any differ.
pub fn map2_into<A, B, R, IA, IB, F>(
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
    F: Fn(A, B) -> R + Copy,
{
    map2_into_opt(None, a, b, f, out)
}

/// [`map2_into`] on `stream`.
pub fn map2_into_on<A, B, R, IA, IB, F>(
    stream: &Stream,
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
    F: Fn(A, B) -> R + Copy,
{
    map2_into_opt(Some(stream), a, b, f, out)
}

fn map_on_opt<A: DeviceScalar, R: DeviceScalar, I: Input<A> + ?Sized, F>(
    stream: Option<&Stream>,
    input: &I,
    f: DeviceFn<F>,
) -> Result<DeviceArray<R>> {
    let target = Target::new(stream, input.home())?;
    let mut out = DeviceArray::zeros_on(&target.device, input.len())?;
    let staged = input.stage(&target.device)?;
    apply::<A, A, R>(&target, vec![arg(&staged)], f.source(), &mut out)?;
    Ok(out)
}

fn map_into_opt<A: DeviceScalar, R: DeviceScalar, I: Input<A> + ?Sized, F>(
    stream: Option<&Stream>,
    input: &I,
    f: DeviceFn<F>,
    out: &mut DeviceArray<R>,
) -> Result<()> {
    if input.len() != out.len() {
        return Err(length_mismatch(
            "map_into",
            [("input", input.len()), ("out", out.len())],
        ));
    }
    let target = Target::new(stream, input.home().or(Some(out.device())))?;
    let staged = input.stage(&target.device)?;
    apply::<A, A, R>(&target, vec![arg(&staged)], f.source(), out)
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
    if a.len() != b.len() {
        return Err(length_mismatch("map2", [("a", a.len()), ("b", b.len())]));
    }
    let target = Target::new(stream, a.home().or(b.home()))?;
    let mut out = DeviceArray::zeros_on(&target.device, a.len())?;
    let (sa, sb) = (a.stage(&target.device)?, b.stage(&target.device)?);
    apply::<A, B, R>(&target, vec![arg(&sa), arg(&sb)], f.source(), &mut out)?;
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
    if a.len() != b.len() {
        return Err(length_mismatch(
            "map2_into",
            [("a", a.len()), ("b", b.len())],
        ));
    }
    if a.len() != out.len() {
        return Err(length_mismatch(
            "map2_into",
            [("a", a.len()), ("out", out.len())],
        ));
    }
    let target = Target::new(stream, a.home().or(b.home()).or(Some(out.device())))?;
    let (sa, sb) = (a.stage(&target.device)?, b.stage(&target.device)?);
    apply::<A, B, R>(&target, vec![arg(&sa), arg(&sb)], f.source(), out)
}

/// Launches `out[i] = f(in0[i](, in1[i]))` over `out.len()` elements (all inputs that
/// long). `A` and `B` are the inputs' element types (`B` unused with one input).
fn apply<'a, A: DeviceScalar, B: DeviceScalar, R: DeviceScalar>(
    target: &Target<'_>,
    mut args: Vec<KernelArg<'a>>,
    f: &'static FnSource,
    out: &'a mut DeviceArray<R>,
) -> Result<()> {
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let (a, b) = (A::SCALAR.rust_name(), B::SCALAR.rust_name());
    let inputs = if args.len() == 1 { vec![a] } else { vec![a, b] };
    let kernel = map_kernel(&inputs, R::SCALAR.rust_name(), f);
    args.push(SliceArgMut::<R>::into_kernel_arg(out));
    let grid = target.stride_grid(n, PER_THREAD);
    crate::launch::launch(kernel.source, kernel.cache, target.config(grid), &mut args)
}

fn arg<'a, T: DeviceScalar>(staged: &'a super::Staged<'_, T>) -> KernelArg<'a> {
    SliceArg::<T>::into_kernel_arg(&**staged)
}

/// The kernel `out[i] = f(in0[i](, in1[i]))` for inputs of the element types `inputs`
/// (one or two) and results of type `r`.
pub(super) fn map_kernel(inputs: &[&str], r: &str, f: &'static FnSource) -> synth::Kernel {
    let fname = f.name;
    let call_f = synth::callee(f, inputs.first().copied().unwrap_or(r));
    let (name, params, call) = match inputs {
        [a] => (
            format!("cj_map_{a}_{r}_{fname}"),
            format!("cj_a: &[{a}]"),
            format!("{call_f}(cj_a[cj_i])"),
        ),
        [a, b, ..] => (
            format!("cj_map2_{a}_{b}_{r}_{fname}"),
            format!("cj_a: &[{a}], cj_b: &[{b}]"),
            format!("{call_f}(cj_a[cj_i], cj_b[cj_i])"),
        ),
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
