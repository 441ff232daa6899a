//! Reductions of values a map makes from each element and its index, into any
//! `#[derive(DeviceCopy)]` struct or scalar: an argmax over `(value, index)` pairs,
//! say, with the user's own associative and commutative `#[device]` operator.
//!
//! The kernels are the reductions' (`reduce::fold_kernel_of`): a struct is kept in
//! shared memory field by field, one shared array of each field's scalar.

use kernel_device::ir::Type;
use kernel_device::source::{FnSource, StructItem};

use super::reduce::{fold_kernel_of, ElemText, MapForm, Partials, PER_THREAD};
use super::{scratch, Input, IntoDeviceFn, Target};
use crate::device::stream::Stream;
use crate::error::{Error, Result};
use crate::launch::args::{KernelArg, SliceArg, SliceArgMut};
use crate::memory::elem::{DeviceElem, DeviceScalar, KernelValue};

/// A type a reduction can fold into: the kernel scalars and `#[derive(DeviceCopy)]`
/// structs of scalar fields.
pub trait ReduceValue: DeviceElem {
    /// The value as a kernel's by-value argument.
    #[doc(hidden)]
    fn kernel_arg(self) -> KernelArg<'static>;
}

impl<T: KernelValue> ReduceValue for T {
    fn kernel_arg(self) -> KernelArg<'static> {
        KernelArg::value(self)
    }
}

macro_rules! scalar_reduce_values {
    ($($t:ty),*) => {$(
        impl ReduceValue for $t {
            fn kernel_arg(self) -> KernelArg<'static> {
                KernelArg::scalar(self)
            }
        }
    )*};
}
scalar_reduce_values!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

/// Folds `map(i, x)` for every element `x` of `input` at index `i` with `op` from
/// `identity`, where `map` and `op` are `#[device]` functions and `U` a scalar or a
/// `#[derive(DeviceCopy)]` struct of scalar fields: e.g. an argmax, `map` pairing each
/// value with its index and `op` keeping the larger value, the lower index on a tie.
/// As for [`reduce`](super::reduce), the order of the fold is not the input's, so `op`
/// must be associative and commutative (a tie broken by the index makes an argmax
/// so), and `op(identity, v) == v`. An empty input gives `identity`.
///
/// `Err` when `U` is a struct that `op`'s source does not name, or one with a field
/// that is not a scalar.
pub fn map_reduce_indexed<T, U, I, M, F>(
    input: &I,
    map: impl IntoDeviceFn<M>,
    op: impl IntoDeviceFn<F>,
    identity: U,
) -> Result<U>
where
    T: DeviceScalar,
    U: ReduceValue,
    I: Input<T> + ?Sized,
    M: Fn(usize, T) -> U + Copy,
    F: Fn(U, U) -> U + Copy,
{
    indexed_with(
        None,
        input,
        map.into_device_fn().source(),
        op.into_device_fn().source(),
        identity,
    )
}

/// [`map_reduce_indexed`] on `stream` (and its device).
pub fn map_reduce_indexed_on<T, U, I, M, F>(
    stream: &Stream,
    input: &I,
    map: impl IntoDeviceFn<M>,
    op: impl IntoDeviceFn<F>,
    identity: U,
) -> Result<U>
where
    T: DeviceScalar,
    U: ReduceValue,
    I: Input<T> + ?Sized,
    M: Fn(usize, T) -> U + Copy,
    F: Fn(U, U) -> U + Copy,
{
    indexed_with(
        Some(stream),
        input,
        map.into_device_fn().source(),
        op.into_device_fn().source(),
        identity,
    )
}

fn indexed_with<T, U, I>(
    stream: Option<&Stream>,
    input: &I,
    map: &'static FnSource,
    op: &'static FnSource,
    identity: U,
) -> Result<U>
where
    T: DeviceScalar,
    U: ReduceValue,
    I: Input<T> + ?Sized,
{
    if input.is_empty() {
        return Ok(identity);
    }
    let u = elem_text::<U>(op)?;
    let target = Target::new(stream, input.home())?;
    let staged = input.stage(&target.device)?;
    let key = scratch::Key::new::<Partials<U>>(&target.device, stream);
    let mut set = match scratch::take::<Partials<U>>(key) {
        Some(set) => set,
        None => Partials::new(&target)?,
    };
    let grid = target.stride_grid(staged.len(), PER_THREAD);
    let t = T::SCALAR.rust_name();
    let first = fold_kernel_of(t, &u, Some((map, MapForm::Indexed)), op);
    let Partials { partials, total } = &mut set;
    if grid == 1 {
        let mut args = [
            SliceArg::<T>::into_kernel_arg(&*staged),
            SliceArgMut::<U>::into_kernel_arg(&mut *total),
            identity.kernel_arg(),
        ];
        crate::launch::launch(first.source, first.cache, target.config(1), &mut args)?;
    } else {
        let mut args = [
            SliceArg::<T>::into_kernel_arg(&*staged),
            first_elements(SliceArgMut::<U>::into_kernel_arg(&mut *partials), grid),
            identity.kernel_arg(),
        ];
        crate::launch::launch(first.source, first.cache, target.config(grid), &mut args)?;
        // The same fold over the partials, in a fixed order: the same result every run.
        let second = fold_kernel_of(&u.name, &u, None, op);
        let mut args = [
            first_elements(SliceArg::<U>::into_kernel_arg(&*partials), grid),
            SliceArgMut::<U>::into_kernel_arg(&mut *total),
            identity.kernel_arg(),
        ];
        crate::launch::launch(second.source, second.cache, target.config(1), &mut args)?;
    }
    let value = total.to_host()?[0];
    scratch::put(key, set);
    Ok(value)
}

/// A device array's argument cut to its first `count` elements (views take scalar
/// elements only; the kernel sees a slice of `count`).
fn first_elements(mut arg: KernelArg<'_>, count: u32) -> KernelArg<'_> {
    arg.len = arg.len.min(i64::from(count));
    arg
}

/// How the kernels name `U`: a scalar by its name; a struct by the name `op`'s source
/// gives it, field by field.
fn elem_text<U: ReduceValue>(op: &'static FnSource) -> Result<ElemText> {
    let ty = U::device_type();
    let def = match &ty {
        Type::Scalar(s) => return Ok(ElemText::scalar(s.rust_name())),
        Type::Struct(def) => def.clone(),
        other => {
            return Err(not_reducible(
                op,
                format!("`{other}` is not a scalar or a struct"),
            ));
        }
    };
    let Some(item) = op.structs.iter().find(|item| (item.def)() == ty) else {
        return Err(not_reducible(
            op,
            format!("`{}` does not name the struct `{}`", op.name, def.name),
        ));
    };
    let mut fields = Vec::new();
    for field in &def.fields {
        match field.ty {
            Type::Scalar(s) => fields.push((field.name.clone(), s.rust_name())),
            ref other => {
                return Err(not_reducible(
                    op,
                    format!(
                        "field `{}.{}` is a `{other}`; a reduction's struct holds scalars only",
                        def.name, field.name
                    ),
                ))
            }
        }
    }
    let structs: &'static [StructItem] = Box::leak(Box::new([StructItem {
        name: item.name,
        def: item.def,
        enum_def: item.enum_def,
    }]));
    Ok(ElemText {
        name: item.name.to_string(),
        fields: Some(fields),
        structs,
    })
}

fn not_reducible(op: &FnSource, detail: String) -> Error {
    Error::ArgumentMismatch {
        kernel: format!("cudajit::map_reduce_indexed({})", op.name),
        detail,
    }
}
