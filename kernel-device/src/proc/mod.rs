//! Rules every stage shares, in the place of naga's `proc/`: the one table of
//! intrinsics ([`intrinsics`]: names, signatures, effects, NVVM symbols), the table of
//! scalar methods with their math lowering ([`methods`]), operator typing
//! ([`operators`]), integer values of a scalar type ([`consteval`]), the `#[kernel(..)]` options' parser ([`options`]) and the kernel
//! ABI, parameters as launch argument slots ([`abi`]). The frontend resolves names and
//! types calls against these tables, the validator checks IR against the same
//! signatures, the NVVM writer reads the symbols, and a unit test holds the host twin's
//! stand-ins (`device_api`) to the same list of names.
//!
//! Adding an intrinsic: the recipe is [`intrinsics`]'s module documentation.

pub mod abi;
// async copies
pub mod async_copy;
// Hopper: clusters
pub mod cluster;
pub mod consteval;
pub mod intrinsics;
// Hopper
pub mod mbarrier;
pub mod methods;
// tensor cores
pub mod mma;
pub mod operators;
pub mod options;
pub mod target;
// Hopper: wgmma
pub mod setmaxnreg;
pub mod wgmma;
// Hopper: TMA
pub mod tma;
pub mod tma_intrinsics;

pub use intrinsics::{Effect, Form, IntrinsicDef, Param, Ret, Signature};
pub use methods::{Method, MethodDef};
