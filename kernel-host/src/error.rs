//! The one error type of the runtime. Every failure a user can cause or meet (no GPU,
//! a bad launch configuration, a kernel that panicked on the device) comes back as a
//! value of [`Error`] whose message says what happened and which limit or call was
//! involved, so that `?` in `main` prints something a person can act on.

use std::sync::Arc;

use cudarc::driver::result::DriverError;

/// `Result` with the runtime's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong between a `launch!` and its results.
///
/// `Clone` so that the process-wide default device can remember why it could not be
/// created and tell every caller the same reason without retrying the driver. `Debug`
/// prints the message (see the impl below).
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// libcuda could not be loaded (no NVIDIA driver installed, or not on the
    /// library path), or the driver is too old for the calls cudajit makes.
    #[error("no CUDA driver: {reason}")]
    NoDriver { reason: String },

    /// The driver works but there is no GPU with this ordinal.
    #[error("no CUDA device {ordinal}: {detail}")]
    NoDevice { ordinal: usize, detail: String },

    /// A CUDA driver call failed; `message` holds the driver's error name and text.
    #[error("CUDA driver call `{call}` failed: {message}")]
    Driver { call: &'static str, message: String },

    /// The kernel's source could not be compiled (outside the subset, ill-typed, or an
    /// internal compiler error). The macro normally catches this at `cargo check`.
    #[error("compiling kernel `{kernel}` failed:\n{message}")]
    Compile { kernel: String, message: String },

    /// libnvvm is missing or rejected the generated NVVM IR.
    #[error("libnvvm failed for kernel `{kernel}`: {message}")]
    Nvvm { kernel: String, message: String },

    /// The launch configuration breaks a device limit; nothing was sent to the GPU.
    #[error("launch of `{kernel}` rejected: {detail} ({limit})")]
    InvalidLaunch {
        kernel: String,
        /// The limit that was broken, by its driver attribute name where there is one.
        limit: String,
        detail: String,
    },

    /// The arguments do not match the kernel's parameters; nothing was sent to the GPU.
    #[error("launch of `{kernel}` rejected: {detail}")]
    ArgumentMismatch { kernel: String, detail: String },

    /// An N-d array's shape does not fit its elements (`DeviceNd::from_array`).
    #[error("shape mismatch: {detail}")]
    ShapeMismatch { detail: String },

    // Hopper: TMA
    /// A tensor map that the hardware cannot use (checked before the driver sees it):
    /// `detail` names the axis, stride or byte count that is wrong.
    #[error("invalid tensor map: {detail}")]
    InvalidTensorMap { detail: String },

    /// A host/device copy between buffers of different lengths.
    #[error(
        "{operation}: the device array holds {expected} elements but the host slice holds {found}"
    )]
    SizeMismatch {
        operation: &'static str,
        expected: usize,
        found: usize,
    },

    /// A range outside a device array (a view or a range copy).
    #[error("{operation}: {detail}")]
    OutOfRange {
        operation: &'static str,
        detail: String,
    },

    /// A kernel panicked on the device (index out of bounds, division by zero, ...).
    /// The thread that panicked first is reported; the context stays usable.
    #[error("kernel `{kernel}` panicked at {file}:{line}:{column}: {message} (block {block}, thread {thread})")]
    KernelPanic {
        kernel: String,
        file: String,
        line: u32,
        column: u32,
        message: String,
        /// Linear block index (`x + y * grid_dim.x + z * grid_dim.x * grid_dim.y`).
        block: u32,
        /// Linear thread index within the block.
        thread: u32,
    },

    /// The GPU context is lost: a kernel made a sticky error (an illegal address under
    /// `boundscheck = false`, a hardware exception), after which the driver refuses
    /// every call on the context. `kernel` is the kernel most recently launched on the
    /// context (the driver does not say which one faulted). Every later call on the
    /// device in this process returns this error; [`crate::Device::reset`] cannot
    /// recover it ([`Error::RestartRequired`]): the driver refuses the process a new
    /// context after a sticky error. A new process uses the GPU normally.
    #[error(
        "the GPU context of CUDA device {ordinal} is lost: {cause}; the kernel most recently \
         launched on it was `{kernel}`. Every later call on this device in this process fails \
         with this error: after such an error the CUDA driver gives this process no new \
         context (`Device::reset()` cannot recover it), so restart the process; the GPU itself \
         works for a new process"
    )]
    ContextLost {
        ordinal: usize,
        kernel: String,
        cause: String,
    },

    /// [`crate::Device::reset`] after a sticky error: the CUDA driver poisons the whole
    /// process, not just the context (measured on the H100, driver 580: after an
    /// illegal address, retaining the primary context again, with or without a reset,
    /// and creating a new context all answer `CUDA_ERROR_ILLEGAL_ADDRESS`), so the
    /// process must be restarted. `kernel` and `cause` are those of the
    /// [`Error::ContextLost`].
    #[error(
        "`Device::reset()` cannot recover CUDA device {ordinal} in this process: after the \
         sticky error ({cause}; the kernel most recently launched was `{kernel}`) the CUDA \
         driver refuses this process every new context on the device. Restart the process; \
         the GPU itself works for a new process"
    )]
    RestartRequired {
        ordinal: usize,
        kernel: String,
        cause: String,
    },

    /// A device array, stream or event made before [`crate::Device::reset`], used after
    /// it: the reset freed what it stood for.
    #[error("{what} was made before `Device::reset()` on CUDA device {ordinal} and is no longer valid; make a new one")]
    StaleAfterReset { what: &'static str, ordinal: usize },

    /// The CPU simulator found a defect the GPU would hide or show as a hang (a data
    /// race, a read of unwritten shared memory, a divergent barrier, a warp operation
    /// naming an inactive lane, an out-of-bounds access) or could not run the launch.
    /// `fault` names the threads, the memory and the source sites. (A device-side panic
    /// is `KernelPanic`, on both backends.)
    #[error("kernel `{kernel}` failed on the CPU simulator: {fault}")]
    Simulator {
        kernel: String,
        fault: Box<kernel_device::back::sim::Fault>,
    },

    /// The backend could not be chosen as asked (`CUDAJIT_BACKEND`, `set_backend`, or
    /// a simulator option in the environment).
    #[error("cannot choose the backend: {detail}")]
    BackendChoice { detail: String },

    /// An operation that only one backend has (a driver attribute on the simulator).
    #[error("`{operation}` is not available on the {backend} backend")]
    NotSupported {
        operation: &'static str,
        backend: crate::backend::Backend,
    },

    /// An operation refused in this situation (a graph capture on the default stream,
    /// a host slice in a captured launch, ...): `detail` says why and what to do.
    #[error("{operation}: {detail}")]
    Refused {
        operation: &'static str,
        detail: String,
    },

    /// `DeviceArray::zeros` of a type that has no all-zero value (an enum without a
    /// variant of discriminant 0).
    #[error("DeviceArray::zeros of `{type_name}`: all-zero bytes are no value of this type (an enum without a variant of discriminant 0); build the array from a slice instead (`DeviceArray::from_slice`)")]
    NoZeroValue { type_name: &'static str },

    /// The host could not allocate memory for the result of a copy.
    #[error("{operation}: cannot allocate {bytes} bytes of host memory")]
    HostOutOfMemory {
        operation: &'static str,
        bytes: usize,
    },

    /// Reading or writing the on-disk kernel cache.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: Arc<std::io::Error>,
    },
}

/// The message, not the fields: `fn main() -> cudajit::Result<()>` prints an error with
/// `Debug`, and should end with the sentence `Display` gives.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl Error {
    /// Wraps a driver error, naming the call that returned it.
    pub(crate) fn driver(call: &'static str, error: DriverError) -> Error {
        Error::Driver {
            call,
            message: describe_driver_error(error),
        }
    }
}

/// Driver errors after which the context refuses every call (CUDA's "sticky" errors).
const STICKY: &[&str] = &[
    "CUDA_ERROR_ILLEGAL_ADDRESS",
    "CUDA_ERROR_LAUNCH_FAILED",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    "CUDA_ERROR_INVALID_PC",
    "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_ASSERT",
    "CUDA_ERROR_LAUNCH_TIMEOUT",
    "CUDA_ERROR_ECC_UNCORRECTABLE",
    "CUDA_ERROR_CONTEXT_IS_DESTROYED",
];

impl Error {
    /// The driver's message when this is a sticky driver error (the context is lost).
    pub(crate) fn sticky_cause(&self) -> Option<&str> {
        match self {
            Error::Driver { message, .. }
                if STICKY.iter().any(|name| {
                    message
                        .strip_prefix(name)
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
                }) =>
            {
                Some(message)
            }
            _ => None,
        }
    }
}

/// `CUDA_ERROR_OUT_OF_MEMORY: out of memory` rather than cudarc's debug format.
pub(crate) fn describe_driver_error(error: DriverError) -> String {
    // Only reached after libcuda loaded (a DriverError comes from a call into it), so
    // asking the driver for the name and text cannot hit cudarc's missing-library panic.
    let name = error
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", error.0));
    match error.error_string() {
        Ok(text) => format!("{name}: {}", text.to_string_lossy()),
        Err(_) => name,
    }
}

/// Adds the call name to a driver result: `check(cuMemAlloc(..), "cuMemAlloc")?`.
pub(crate) trait DriverResultExt<T> {
    fn call(self, call: &'static str) -> Result<T>;
}

impl<T> DriverResultExt<T> for std::result::Result<T, DriverError> {
    fn call(self, call: &'static str) -> Result<T> {
        self.map_err(|e| Error::driver(call, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sticky_errors_are_recognised_by_their_driver_name() {
        let driver = |message: &str| Error::Driver {
            call: "cuStreamSynchronize",
            message: message.into(),
        };
        let lost = driver("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered");
        assert!(lost
            .sticky_cause()
            .unwrap()
            .starts_with("CUDA_ERROR_ILLEGAL_ADDRESS"));
        assert!(driver("CUDA_ERROR_LAUNCH_FAILED").sticky_cause().is_some());
        assert!(driver("CUDA_ERROR_OUT_OF_MEMORY: out of memory")
            .sticky_cause()
            .is_none());
        // A longer name that merely starts like a sticky one is not one.
        assert!(driver("CUDA_ERROR_ILLEGAL_ADDRESS_X: no")
            .sticky_cause()
            .is_none());
        let e = Error::ContextLost {
            ordinal: 0,
            kernel: "scatter".into(),
            cause: "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".into(),
        }
        .to_string();
        assert!(
            e.starts_with("the GPU context of CUDA device 0 is lost: CUDA_ERROR_ILLEGAL_ADDRESS"),
            "{e}"
        );
        assert!(
            e.contains("most recently launched on it was `scatter`"),
            "{e}"
        );
        assert!(e.contains("restart the process"), "{e}");
        let r = Error::RestartRequired {
            ordinal: 0,
            kernel: "scatter".into(),
            cause: "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".into(),
        }
        .to_string();
        assert!(
            r.starts_with("`Device::reset()` cannot recover CUDA device 0 in this process"),
            "{r}"
        );
        assert!(r.contains("most recently launched was `scatter`"), "{r}");
        assert!(r.contains("Restart the process"), "{r}");
    }

    #[test]
    fn messages_read_as_sentences() {
        let e = Error::InvalidLaunch {
            kernel: "vecadd".into(),
            limit: "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK".into(),
            detail: "block of 2048 threads exceeds the device limit of 1024 threads per block"
                .into(),
        };
        assert_eq!(
            e.to_string(),
            "launch of `vecadd` rejected: block of 2048 threads exceeds the device limit of \
             1024 threads per block (CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)"
        );
        let p = Error::KernelPanic {
            kernel: "vecadd".into(),
            file: "examples/vecadd.rs".into(),
            line: 14,
            column: 9,
            message: "index out of bounds: the len is 8 but the index is 9".into(),
            block: 0,
            thread: 8,
        };
        assert_eq!(
            p.to_string(),
            "kernel `vecadd` panicked at examples/vecadd.rs:14:9: index out of bounds: \
             the len is 8 but the index is 9 (block 0, thread 8)"
        );
    }

    /// What `fn main() -> cudajit::Result<()>` prints after `Error: ` is `Debug`.
    #[test]
    fn debug_prints_the_message() {
        let errors = [
            Error::NoDriver {
                reason: "libcuda.so.1 not found".into(),
            },
            Error::SizeMismatch {
                operation: "copy_to_host",
                expected: 4,
                found: 3,
            },
            Error::HostOutOfMemory {
                operation: "to_host",
                bytes: usize::MAX,
            },
        ];
        for e in errors {
            let debug = format!("{e:?}");
            assert_eq!(debug, e.to_string());
            assert!(
                !debug.contains('{') && !debug.contains("SizeMismatch"),
                "{debug}"
            );
        }
        // As `main` returning `Err(e)` prints it: `Error: ` then `{:?}`.
        let returned = Error::NoDevice {
            ordinal: 3,
            detail: "2 devices".into(),
        };
        assert_eq!(
            format!("Error: {returned:?}"),
            "Error: no CUDA device 3: 2 devices"
        );
    }

    #[test]
    fn error_is_send_sync_clone() {
        fn check<T: Send + Sync + Clone + std::error::Error + 'static>() {}
        check::<Error>();
    }
}
