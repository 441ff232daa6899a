//! What every high-level operation takes and where it runs: a `#[device]` function as a
//! value ([`DeviceFn`]), an input that is a host slice or a device array ([`Input`],
//! staged on the device as [`Staged`]), and the device and stream it runs on
//! ([`Target`], with the grids that fill that device).

use kernel_device::source::FnSource;

use crate::device::stream::Stream;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::launch::config::LaunchConfig;
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

use super::synth;

/// A `#[device]` function as a value the high-level operations take: its embedded
/// source (compiled into their kernels) and its host twin (the same function, callable
/// on the CPU). Made by `cudajit::device_fn!(f)`; `F` is `f`'s function type, so rustc
/// checks at the call that `f` takes and returns the element types the operation needs.
#[derive(Clone, Copy)]
pub struct DeviceFn<F> {
    source: &'static FnSource,
    host: F,
}

impl<F: Copy> DeviceFn<F> {
    /// Used by `device_fn!`; not a stable API.
    #[doc(hidden)]
    pub const fn __new(source: &'static FnSource, host: F) -> Self {
        DeviceFn { source, host }
    }

    /// The function itself, callable on the host (for a CPU reference, say).
    pub fn host(&self) -> F {
        self.host
    }

    /// The function's name as written.
    pub fn name(&self) -> &'static str {
        self.source.name
    }
}

impl<F> DeviceFn<F> {
    pub(crate) fn source(&self) -> &'static FnSource {
        self.source
    }
}

/// What the high-level operations take as a device operator: a [`DeviceFn`], made by
/// `device_fn!(f)` from a `#[device]` function `f`. A closure or a plain function is not
/// one (the operations compile the operator's source into their kernels, which only a
/// `#[device]` function embeds), and passing one is reported in these words.
#[diagnostic::on_unimplemented(
    message = "a device operator must be a `#[device]` function wrapped with `device_fn!(..)`",
    label = "not a `device_fn!(..)`: closures and plain functions cannot run on the GPU",
    note = "write the operator as a `#[device]` function and pass it with `device_fn!`:\n      #[device]\n      fn add(a: f32, b: f32) -> f32 {{ a + b }}\n      ..\n      cudajit::reduce(&x, device_fn!(add), 0.0)"
)]
pub trait IntoDeviceFn<F> {
    /// The operator as a `DeviceFn`.
    #[doc(hidden)]
    fn into_device_fn(self) -> DeviceFn<F>;
}

// `do_not_recommend`: an error names no impl (it would point into cudajit's sources);
// the message above says what to write instead.
#[diagnostic::do_not_recommend]
impl<F> IntoDeviceFn<F> for DeviceFn<F> {
    fn into_device_fn(self) -> DeviceFn<F> {
        self
    }
}

impl<F> std::fmt::Debug for DeviceFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceFn({})", self.source.name)
    }
}

/// An array the high-level operations read: a host slice, `Vec` or array (copied to
/// the device for the call) or a [`DeviceArray`] (read in place).
pub trait Input<T: DeviceScalar> {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The device array holding the elements on `device`.
    #[doc(hidden)]
    fn stage(&self, device: &Device) -> Result<Staged<'_, T>>;
    /// The device the elements already live on, if any.
    #[doc(hidden)]
    fn home(&self) -> Option<&Device>;
    /// A lone scalar (a 0-d input, one element): elementwise maps broadcast it against
    /// the other input's length instead of reading an array.
    #[doc(hidden)]
    fn broadcast(&self) -> Option<T> {
        None
    }
    /// An N-d input's shape (`None` for slices and flat arrays): two N-d inputs of an
    /// elementwise operation must have the same shape, not only the same length.
    #[doc(hidden)]
    fn nd_shape(&self) -> Option<Vec<usize>> {
        None
    }
}

/// A scalar is an input of one element; in `map2`/`map2_into` (and `#[vectorize]`'s
/// `apply`) it is broadcast, as NumPy broadcasts a 0-d array: `saxpy::apply(&2.0, &y)`.
macro_rules! scalar_inputs {
    ($($t:ty),*) => {$(
        impl Input<$t> for $t {
            fn len(&self) -> usize {
                1
            }
            fn stage(&self, device: &Device) -> Result<Staged<'_, $t>> {
                std::slice::from_ref(self).stage(device)
            }
            fn home(&self) -> Option<&Device> {
                None
            }
            fn broadcast(&self) -> Option<$t> {
                Some(*self)
            }
        }
    )*};
}
scalar_inputs!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

/// An input on the device: borrowed, or a copy made for this call.
#[doc(hidden)]
pub enum Staged<'a, T: DeviceScalar> {
    Borrowed(&'a DeviceArray<T>),
    Owned(DeviceArray<T>),
}

impl<T: DeviceScalar> std::ops::Deref for Staged<'_, T> {
    type Target = DeviceArray<T>;
    fn deref(&self) -> &DeviceArray<T> {
        match self {
            Staged::Borrowed(a) => a,
            Staged::Owned(a) => a,
        }
    }
}

impl<T: DeviceScalar> Input<T> for DeviceArray<T> {
    fn len(&self) -> usize {
        DeviceArray::len(self)
    }
    fn stage(&self, _device: &Device) -> Result<Staged<'_, T>> {
        // A different device is reported by the launch, which checks every array.
        Ok(Staged::Borrowed(self))
    }
    fn home(&self) -> Option<&Device> {
        Some(self.device())
    }
}

impl<T: DeviceScalar> Input<T> for [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn stage(&self, device: &Device) -> Result<Staged<'_, T>> {
        DeviceArray::from_slice_on(device, self).map(Staged::Owned)
    }
    fn home(&self) -> Option<&Device> {
        None
    }
}

impl<T: DeviceScalar> Input<T> for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn stage(&self, device: &Device) -> Result<Staged<'_, T>> {
        self.as_slice().stage(device)
    }
    fn home(&self) -> Option<&Device> {
        None
    }
}

impl<T: DeviceScalar, const N: usize> Input<T> for [T; N] {
    fn len(&self) -> usize {
        N
    }
    fn stage(&self, device: &Device) -> Result<Staged<'_, T>> {
        self.as_slice().stage(device)
    }
    fn home(&self) -> Option<&Device> {
        None
    }
}

/// Where an operation runs: the stream's device, else the device its input lives on,
/// else the default device.
pub(crate) struct Target<'s> {
    pub device: Device,
    pub stream: Option<&'s Stream>,
}

impl<'s> Target<'s> {
    pub fn new(stream: Option<&'s Stream>, home: Option<&Device>) -> Result<Self> {
        let device = match (stream, home) {
            (Some(s), _) => s.device().clone(),
            (None, Some(d)) => d.clone(),
            (None, None) => Device::default()?,
        };
        Ok(Target { device, stream })
    }

    /// `grid` blocks of [`synth::BLOCK`] threads on this target's stream.
    pub fn config(&self, grid: u32) -> LaunchConfig<'s> {
        let config = LaunchConfig::new(grid.max(1), synth::BLOCK);
        match self.stream {
            Some(s) => config.stream(s),
            None => config,
        }
    }

    /// The grid of a grid-stride kernel over `n` elements, `per_thread` each at least:
    /// enough blocks to fill the GPU (blocks per multiprocessor at full occupancy times
    /// the multiprocessors), fewer when `n` is small. The simulator runs every thread on
    /// the CPU: a few blocks keep it fast, and the loop covers the rest.
    pub fn stride_grid(&self, n: usize, per_thread: usize) -> u32 {
        let block = synth::BLOCK as usize;
        let needed = n.div_ceil(block * per_thread.max(1)).max(1);
        let full = if self.device.is_simulator() {
            4
        } else {
            // 2048 resident threads per multiprocessor on every GPU since Volta
            // (sm_70..sm_90); the texts use few registers and little shared memory.
            let per_sm = (2048 / block).max(1);
            self.device.multiprocessor_count() as usize * per_sm
        };
        needed.min(full).max(1) as u32
    }
}

/// `Err` for inputs of different lengths, naming both.
pub(crate) fn length_mismatch(operation: &str, what: [(&str, usize); 2]) -> Error {
    let [(a, la), (b, lb)] = what;
    Error::ArgumentMismatch {
        kernel: format!("cudajit::{operation}"),
        detail: format!("`{a}` holds {la} elements but `{b}` holds {lb}; they must be equal"),
    }
}
