//! The backends that execute kernels, by name (which one the default device is, is
//! decided in `crate::device::default`; what each does, in `crate::executor`).

/// What executes kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// An NVIDIA GPU through the CUDA driver (PTX from libnvvm).
    Cuda,
    /// The CPU simulator: interprets the kernel's IR, 32-lane warps in lockstep, and
    /// finds races, unwritten shared memory, divergent barriers and bad warp masks.
    Simulator,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Cuda => "CUDA",
            Backend::Simulator => "CPU simulator",
        })
    }
}

/// The environment variable that forces a backend.
pub const BACKEND_VARIABLE: &str = "CUDAJIT_BACKEND";
