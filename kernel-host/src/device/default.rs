//! Which backend the default device is: a GPU through the CUDA driver, or the CPU
//! simulator. Decided once per process, at the first use of the default device:
//!
//! 1. [`set_backend`], if it was called before;
//! 2. else `CUDAJIT_BACKEND=cuda` (a GPU or the driver's error) or `=sim`;
//! 3. else a GPU when the machine has one, and the simulator when it has no driver or no
//!    GPU, said once on stderr so that nobody mistakes simulated runs for GPU runs.

use std::sync::{Arc, Mutex, OnceLock};

use crate::backend::{Backend, BACKEND_VARIABLE};
use crate::device::open_gpu::open_default_gpu;
use crate::device::Device;
use crate::error::{Error, Result};

/// Here, not beside `Backend`, because its error is an `Error`, which names a `Backend`.
impl std::str::FromStr for Backend {
    type Err = Error;

    /// `cuda`, or `sim`/`simulator` (any case).
    fn from_str(text: &str) -> Result<Backend> {
        match text.trim().to_ascii_lowercase().as_str() {
            "cuda" | "gpu" => Ok(Backend::Cuda),
            "sim" | "simulator" => Ok(Backend::Simulator),
            _ => Err(Error::BackendChoice {
                detail: format!(
                    "{BACKEND_VARIABLE}={text:?} names no backend (use `cuda` or `sim`)"
                ),
            }),
        }
    }
}

/// Without a GPU, the default device is the simulator (the GPU test suite passes on
/// it). `false` would give a machine without a GPU the driver's error instead.
const FALL_BACK_TO_SIMULATOR: bool = true;

/// The default device, or why there is none (remembered so that every caller gets the
/// same answer without probing the driver again).
static DEFAULT: OnceLock<Result<Device>> = OnceLock::new();

/// Where the choice of the default device's backend stands. Locked while the choice is
/// made, so a [`set_backend`] request either comes before it (and is obeyed) or after it
/// (and is checked against it).
enum Choice {
    /// Not chosen yet; what [`set_backend`] asked for.
    Open(Option<Backend>),
    /// Chosen: the backend (None: no device) and how to name the choice in an error.
    Made(Option<Backend>, String),
}

static CHOICE: Mutex<Choice> = Mutex::new(Choice::Open(None));

/// Forces the default device's backend. Call it before the first launch or device
/// array that uses the default device; afterwards it succeeds only if the default
/// device already is of `backend`. Takes precedence over `CUDAJIT_BACKEND`.
pub fn set_backend(backend: Backend) -> Result<()> {
    let mut choice = CHOICE.lock().unwrap_or_else(|p| p.into_inner());
    match &*choice {
        Choice::Open(_) => {
            *choice = Choice::Open(Some(backend));
            Ok(())
        }
        Choice::Made(Some(chosen), _) if *chosen == backend => Ok(()),
        Choice::Made(_, what) => Err(Error::BackendChoice {
            detail: format!(
                "set_backend({backend:?}) came after the default device was chosen ({what}); \
                 call it before the first launch"
            ),
        }),
    }
}

/// The backend of the default device, choosing it if not chosen yet.
pub fn default_backend() -> Result<Backend> {
    Ok(default_device()?.backend())
}

pub(crate) fn default_device() -> Result<&'static Device> {
    DEFAULT
        .get_or_init(choose_default)
        .as_ref()
        .map_err(Clone::clone)
}

/// The default device if it has been chosen (and exists), without choosing it.
pub(crate) fn default_if_chosen() -> Option<&'static Device> {
    DEFAULT.get().and_then(|d| d.as_ref().ok())
}

fn choose_default() -> Result<Device> {
    let mut choice = CHOICE.lock().unwrap_or_else(|p| p.into_inner());
    let requested = match &*choice {
        Choice::Open(requested) => *requested,
        // Unreachable (the OnceLock runs this once), but a second answer must agree.
        Choice::Made(..) => None,
    };
    let device = open_chosen(requested);
    *choice = match &device {
        Ok(device) => Choice::Made(Some(device.backend()), device.to_string()),
        Err(e) => Choice::Made(None, e.to_string()),
    };
    device
}

fn open_chosen(requested: Option<Backend>) -> Result<Device> {
    let forced = match requested {
        Some(backend) => Some(backend),
        None => match std::env::var(BACKEND_VARIABLE) {
            Ok(text) if !text.trim().is_empty() => Some(text.parse()?),
            _ => None,
        },
    };
    match forced {
        Some(Backend::Cuda) => open_default_gpu(),
        Some(Backend::Simulator) => Device::simulator(),
        None => match open_default_gpu() {
            Err(why) if FALL_BACK_TO_SIMULATOR && no_gpu_here(&why) => {
                let device = Device::simulator()?;
                announce_simulator(&why, &device);
                Ok(device)
            }
            chosen => chosen,
        },
    }
}

/// Whether `error` means this machine has no usable GPU at all (rather than a wrong
/// ordinal or a broken driver call, which stay errors).
fn no_gpu_here(error: &Error) -> bool {
    match error {
        Error::NoDriver { .. } => true,
        Error::NoDevice { .. } => matches!(Device::count(), Ok(0) | Err(_)),
        _ => false,
    }
}

fn announce_simulator(why: &Error, device: &Device) {
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "cudajit: no GPU ({why}); kernels run on {device}. \
         Set {BACKEND_VARIABLE}=cuda to require a GPU."
    );
}

impl Device {
    /// The process-wide default device: a GPU (ordinal `$CUDAJIT_DEVICE`, or 0) when
    /// there is one, else the CPU simulator (said once on stderr).
    /// `CUDAJIT_BACKEND=cuda|sim` or [`crate::set_backend`] force either.
    #[allow(clippy::should_implement_trait)] // fallible, unlike `Default::default`
    pub fn default() -> Result<Device> {
        Device::default_ref().cloned()
    }

    /// The default device without a reference-count increment, for the launch path.
    pub(crate) fn default_ref() -> Result<&'static Device> {
        default_device()
    }

    /// Whether this is the process's default device (the launch fast path).
    pub(crate) fn is_default(&self) -> bool {
        matches!(default_if_chosen(), Some(d) if Arc::ptr_eq(&d.inner, &self.inner))
    }
}

/// Waits for all work on the default device and reports the first device-side panic
/// of the calling thread's asynchronous launches (see [`Device::synchronize`]).
pub fn synchronize() -> Result<()> {
    Device::default_ref()?.synchronize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names_parse() {
        assert_eq!("cuda".parse::<Backend>().unwrap(), Backend::Cuda);
        assert_eq!(" SIM ".parse::<Backend>().unwrap(), Backend::Simulator);
        assert_eq!("simulator".parse::<Backend>().unwrap(), Backend::Simulator);
        let error = "vulkan".parse::<Backend>().unwrap_err().to_string();
        assert!(error.contains("CUDAJIT_BACKEND=\"vulkan\""), "{error}");
        assert!(error.contains("`cuda` or `sim`"), "{error}");
    }
}
