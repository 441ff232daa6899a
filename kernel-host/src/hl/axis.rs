//! Reductions along one axis of a 2-D or 3-D array (NumPy's `x.sum(axis=k)`, CuPy's
//! `ReductionKernel` with `axis`): the array is read as `[outer, len, inner]` around
//! the reduced axis (row-major), and each of the `outer * inner` results folds the
//! `len` elements `inner` apart. Two kernels, chosen by the layout:
//! - the last axis (`inner == 1`): one block per row (grid-stride over rows), its
//!   threads striding along the row (coalesced) and folding by a tree in shared memory;
//! - any other axis: one thread per result, walking down its column; neighbouring
//!   threads read neighbouring elements, so every step is coalesced.
//!
//! `op` must be associative and commutative, as for [`super::reduce`] (rows are folded
//! in a tree order). An empty axis gives `identity` in every result.

use kernel_device::source::FnSource;
use ndarray::{ArrayBase, Data, Ix2, Ix3};

use super::numeric::{Builtin, Numeric};
use super::{synth, Input, IntoDeviceFn, Target};
use crate::device::stream::Stream;
use crate::error::{Error, Result};
use crate::launch::args::{KernelArg, SliceArg, SliceArgMut};
use crate::launch::nd::DeviceNd;
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

/// An N-d input an axis reduction accepts: a [`DeviceNd`] (used in place) or an
/// `ndarray` array or view of 2 or 3 axes (any layout; copied to the device in logical
/// order for the call). `Reduced` has one axis fewer.
pub trait AxisInput<T: DeviceScalar>: Input<T> {
    /// The result: a device array with the reduced axis removed.
    type Reduced;
    /// Wraps the results (row-major, `shape` with the axis removed).
    #[doc(hidden)]
    fn reduced(results: DeviceArray<T>, shape: &[usize]) -> Result<Self::Reduced>;
}

macro_rules! axis_inputs {
    ($($d:literal => $ix:ty, $smaller:literal);*) => {$(
        impl<T: DeviceScalar> AxisInput<T> for DeviceNd<T, $d> {
            type Reduced = DeviceNd<T, $smaller>;
            fn reduced(results: DeviceArray<T>, shape: &[usize]) -> Result<Self::Reduced> {
                DeviceNd::from_array(results, std::array::from_fn(|axis| shape[axis]))
            }
        }

        impl<T: DeviceScalar, S: Data<Elem = T>> AxisInput<T> for ArrayBase<S, $ix> {
            type Reduced = DeviceNd<T, $smaller>;
            fn reduced(results: DeviceArray<T>, shape: &[usize]) -> Result<Self::Reduced> {
                DeviceNd::from_array(results, std::array::from_fn(|axis| shape[axis]))
            }
        }
    )*};
}
axis_inputs!(2 => Ix2, 1; 3 => Ix3, 2);

/// Folds `input` along `axis` with `op` (a `#[device]` function, `device_fn!(op)`) from
/// `identity`: a 2-D input gives a 1-D result, a 3-D input a 2-D one. `Err` naming the
/// shape when `axis` is not one of the input's axes.
pub fn reduce_axis<T, A, F>(
    input: &A,
    axis: usize,
    op: impl IntoDeviceFn<F>,
    identity: T,
) -> Result<A::Reduced>
where
    T: DeviceScalar,
    A: AxisInput<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    reduce_axis_with(None, input, axis, op.into_device_fn().source(), identity)
}

/// [`reduce_axis`] on `stream` (and its device).
pub fn reduce_axis_on<T, A, F>(
    stream: &Stream,
    input: &A,
    axis: usize,
    op: impl IntoDeviceFn<F>,
    identity: T,
) -> Result<A::Reduced>
where
    T: DeviceScalar,
    A: AxisInput<T> + ?Sized,
    F: Fn(T, T) -> T + Copy,
{
    reduce_axis_with(
        Some(stream),
        input,
        axis,
        op.into_device_fn().source(),
        identity,
    )
}

macro_rules! builtin_axis {
    ($($name:ident, $on:ident => $op:ident, $identity:ident, $what:literal;)*) => {$(
        #[doc = concat!("The ", $what, " along `axis` (see [`reduce_axis`]).")]
        pub fn $name<T: Numeric, A: AxisInput<T> + ?Sized>(input: &A, axis: usize) -> Result<A::Reduced> {
            reduce_axis_with(None, input, axis, Builtin::$op.source::<T>(), T::$identity)
        }
        #[doc = concat!("[`", stringify!($name), "`] on `stream`.")]
        pub fn $on<T: Numeric, A: AxisInput<T> + ?Sized>(
            stream: &Stream,
            input: &A,
            axis: usize,
        ) -> Result<A::Reduced> {
            reduce_axis_with(Some(stream), input, axis, Builtin::$op.source::<T>(), T::$identity)
        }
    )*};
}
builtin_axis! {
    sum_axis, sum_axis_on => Add, ZERO, "sum (wrapping for integers)";
    product_axis, product_axis_on => Mul, ONE, "product (wrapping for integers)";
    min_axis, min_axis_on => Min, HIGHEST, "smallest element (NaNs skipped)";
    max_axis, max_axis_on => Max, LOWEST, "largest element (NaNs skipped)";
}

/// `[outer, len, inner]`: the input seen around `axis`.
fn around_axis(lengths: &[usize], axis: usize) -> Result<[usize; 3]> {
    if axis >= lengths.len() {
        return Err(Error::ShapeMismatch {
            detail: format!(
                "cannot reduce along axis {axis} of an array of shape {lengths:?}: it has \
                 axes 0..{}",
                lengths.len()
            ),
        });
    }
    let product = |axes: &[usize]| axes.iter().product::<usize>();
    Ok([
        product(&lengths[..axis]),
        lengths[axis],
        product(&lengths[axis + 1..]),
    ])
}

fn reduce_axis_with<T, A>(
    stream: Option<&Stream>,
    input: &A,
    axis: usize,
    op: &'static FnSource,
    identity: T,
) -> Result<A::Reduced>
where
    T: DeviceScalar,
    A: AxisInput<T> + ?Sized,
{
    let lengths = input.nd_shape().unwrap_or_else(|| vec![input.len()]);
    let [outer, len, inner] = around_axis(&lengths, axis)?;
    let mut shape = lengths.clone();
    shape.remove(axis);
    let target = Target::new(stream, input.home())?;
    let mut results = DeviceArray::<T>::zeros_on(&target.device, outer * inner)?;
    if outer * inner > 0 {
        let staged = input.stage(&target.device)?;
        let last_axis = inner == 1;
        let kernel = axis_kernel::<T>(op, last_axis);
        let grid = if last_axis {
            // One block per row, at most a full GPU's worth (the kernel loops over rows).
            target.stride_grid(outer * synth::BLOCK as usize, 1)
        } else {
            target.stride_grid(outer * inner, 1)
        };
        let mut args = [
            SliceArg::<T>::into_kernel_arg(&*staged),
            SliceArgMut::<T>::into_kernel_arg(&mut results),
            KernelArg::scalar(len),
            KernelArg::scalar(inner),
            KernelArg::scalar(identity),
        ];
        crate::launch::launch(kernel.source, kernel.cache, target.config(grid), &mut args)?;
    }
    A::reduced(results, &shape)
}

/// The kernel folding rows (`last_axis`) or columns of its input with `op`.
fn axis_kernel<T: DeviceScalar>(op: &'static FnSource, last_axis: bool) -> synth::Kernel {
    let t = T::SCALAR.rust_name();
    let opn = synth::callee(op, t);
    let block = synth::BLOCK;
    let (name, body) = if last_axis {
        let name = format!("cj_reduce_rows_{t}_{}", op.name);
        let body = format!(
            "    let cj_sm = shared_array::<[{t}; {block}]>();
    let cj_tid = thread_idx().x as usize;
    let mut cj_row = block_idx().x as usize;
    while cj_row < cj_out.len() {{
        let cj_start = cj_row * cj_len;
        let mut cj_a = cj_identity;
        let mut cj_j = cj_tid;
        while cj_j < cj_len {{
            cj_a = {opn}(cj_a, cj_in[cj_start + cj_j]);
            cj_j += {block};
        }}
        cj_sm[cj_tid] = cj_a;
        sync_threads();
        let mut cj_s = {half}usize;
        while cj_s > 0 {{
            if cj_tid < cj_s {{
                cj_sm[cj_tid] = {opn}(cj_sm[cj_tid], cj_sm[cj_tid + cj_s]);
            }}
            sync_threads();
            cj_s >>= 1;
        }}
        if cj_tid == 0 {{
            cj_out[cj_row] = cj_sm[0];
        }}
        sync_threads();
        cj_row += grid_dim().x as usize;
    }}",
            half = block / 2
        );
        (name, body)
    } else {
        let name = format!("cj_reduce_columns_{t}_{}", op.name);
        let body = format!(
            "    let cj_stride = grid_size(1);
    let mut cj_k = grid(1);
    while cj_k < cj_out.len() {{
        let cj_outer = cj_k / cj_inner;
        let mut cj_at = cj_outer * cj_len * cj_inner + cj_k % cj_inner;
        let mut cj_a = cj_identity;
        let mut cj_j = 0usize;
        while cj_j < cj_len {{
            cj_a = {opn}(cj_a, cj_in[cj_at]);
            cj_at += cj_inner;
            cj_j += 1;
        }}
        cj_out[cj_k] = cj_a;
        cj_k += cj_stride;
    }}"
        );
        (name, body)
    };
    let text = format!(
        "fn {name}(cj_in: &[{t}], cj_out: &mut [{t}], cj_len: usize, cj_inner: usize, cj_identity: {t}) {{
{body}
}}"
    );
    synth::kernel(&name, text, &[op])
}

#[cfg(test)]
mod tests {
    use super::around_axis;

    #[test]
    fn axes_split_the_shape_around_the_reduced_one() {
        assert_eq!(around_axis(&[4, 5], 0).unwrap(), [1, 4, 5]);
        assert_eq!(around_axis(&[4, 5], 1).unwrap(), [4, 5, 1]);
        assert_eq!(around_axis(&[2, 3, 4], 1).unwrap(), [2, 3, 4]);
        assert_eq!(around_axis(&[2, 0, 4], 2).unwrap(), [0, 4, 1]);
        let error = around_axis(&[2, 3], 2).unwrap_err().to_string();
        assert!(
            error.contains("axis 2") && error.contains("[2, 3]"),
            "{error}"
        );
    }
}
