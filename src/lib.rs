//! cudajit: Numba's `@cuda.jit` for Rust. Write a kernel as a Rust function under
//! `#[kernel]`, launch it with `launch!(kernel[grid, block](args))`; it is compiled
//! through libnvvm to PTX on first launch (or ahead of time with
//! `cudajit_build::embed_device_code()` in a `build.rs`: see [`aot`]).
//!
//! ```no_run
//! use cudajit::prelude::*;
//!
//! #[device]
//! fn square(x: f32) -> f32 {
//!     x * x
//! }
//!
//! #[kernel]
//! fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
//!     let i = grid(1);
//!     if i < c.len() {
//!         c[i] = square(a[i]) + b[i];
//!     }
//! }
//!
//! fn main() -> cudajit::Result<()> {
//!     let (a, b) = (vec![1.0f32; 1024], vec![2.0f32; 1024]);
//!     let mut c = vec![0.0f32; 1024];
//!     launch!(vecadd[4, 256](&a, &b, &mut c))?;
//!     assert!(c.iter().all(|&x| x == 3.0));
//!     Ok(())
//! }
//! ```
//!
//! This crate only gathers the pieces: the attributes come from `kernel-macros`, the
//! compiler and device API from `kernel-device`, the runtime from `kernel-host`.

// Generated code names `::cudajit::__private`, also inside this crate's own tests.
extern crate self as cudajit;

/// N-d arrays: `Nd<T, D>` is the type of a kernel's 2-D/3-D parameter (`a: &Nd<f32, 2>`,
/// indexed `a[(i, j)]`), passed from `ndarray` arrays and views (re-exported as
/// `cudajit::ndarray`) or from a [`DeviceNd`] (a device array with a shape).
pub use kernel_device::device_api::Nd;
pub use kernel_host::ndarray;
/// What kernels print (`println!` in device code): buffer size, line order, capture.
pub use kernel_host::print;
pub use kernel_host::DeviceNd;
pub use kernel_host::{
    default_backend, elapsed_ms, set_backend, synchronize, to_device, Backend, Device, DeviceArray,
    DeviceAttribute, DeviceElem, DeviceProperties, DeviceScalar, Dim, Error, Event, LaunchConfig,
    MemInfo, Result, SimAccess, SimFault, SimOptions, SimSite, SimThreadId, Stream,
};
/// Pinned host buffers, CUDA graphs and interop with memory and streams of other
/// libraries (cudarc, and DLPack tensors: `DeviceArray::from_dlpack`/`into_dlpack`).
pub use kernel_host::{
    dlpark, BorrowedArray, CopyGuard, CudarcSlice, DlpackTensor, Graph, PinnedBuffer,
};
/// Several devices: peer copies and collectives (NCCL on GPUs, the simulator's own on
/// simulated devices).
pub use kernel_host::{
    nccl_version, CollectiveElem, Communicator, Communicators, PeerPath, ReduceOp, UniqueId,
    NCCL_PATH_VARIABLE,
};
// Hopper: TMA
/// TMA tensor maps (docs/hopper.md): the descriptor a Hopper kernel's bulk tensor
/// copies read, built from a `DeviceArray`/`DeviceNd` and checked on the host.
pub use kernel_host::{
    L2Promotion, OobFill, Swizzle, TensorMap, TensorMapBytes, TensorMapMut, TensorMapOptions,
};
pub use kernel_macros::{device, kernel, vectorize, DeviceCopy};

/// The trait behind `#[derive(DeviceCopy)]` (the derive's namesake): types that cross
/// to the device as plain bytes. Implement it with the derive.
pub use kernel_device::source::DeviceCopy;

/// The on-disk kernel cache: [`cache::info`] (location, entries, size) and
/// [`cache::clear`]; `cargo xtask cache` runs them for this workspace.
pub use kernel_host::disk as cache;
/// A kernel's NVVM IR, PTX and resources without a GPU (README: "To look at what a kernel becomes").
pub use kernel_host::inspect;

/// Kernels compiled ahead of time and embedded in the binary (README: "Ahead of time").
/// A crate's `build.rs` runs `cudajit_build::embed_device_code()`, its root says
/// `cudajit::embed_device_code!();`, and every launch of a kernel found here loads its
/// PTX without libnvvm, or, on a GPU its machine code was made for (a ptxas was found
/// at build time), that machine code without the driver's JIT.
pub mod aot {
    pub use kernel_host::aot_support::{entries, sass_arch, AotEntry, AOT_SASS_VARIABLE};

    /// The embedded PTX a launch of a kernel on a device of compute capability
    /// `capability` would load, for the kernel's source (`my_kernel::source()`; a
    /// generic kernel's instantiation: `axpy.__cudajit_instance::<f32>().0`): the
    /// runtime's own lookup (the same key over the same IR). `Ok(None)`: that launch
    /// would compile the kernel with libnvvm instead.
    pub fn find(
        source: &'static kernel_device::source::FnSource,
        capability: (u32, u32),
    ) -> crate::Result<Option<&'static AotEntry>> {
        kernel_host::aot_support::find(source, capability)
    }
}

/// Where a process's first launches spent their time: each kernel's first launch by
/// stage ([`profile::enable`], then [`profile::take_first_launches`]), and what opening
/// the GPU did ahead of them: libnvvm's warm-up and the kernels compiled (or, built
/// ahead of time, loaded) while the GPU's context was created
/// ([`profile::compiled_while_opening_report`]; README: "Kernels compile while the GPU
/// opens").
pub mod profile {
    pub use kernel_host::profile::{
        compiled_while_opening_report, enable, take_first_launches, warm_up_report,
        CompiledWhileOpening, FirstLaunch, FirstStage, WarmUp, COMPILE_WHILE_OPENING_VARIABLE,
        WARM_UP_VARIABLE,
    };
}

/// Embeds the PTX that `cudajit_build::embed_device_code()` compiled in this crate's
/// `build.rs` (written to `OUT_DIR`), so launches of these kernels need no libnvvm.
/// Put it once at the crate root, beside the kernels' module declarations. When the
/// build found no libnvvm, the table is empty and every kernel is compiled at its
/// first launch as usual.
#[macro_export]
macro_rules! embed_device_code {
    () => {
        $crate::__private::inventory::submit! {
            $crate::__private::EmbeddedTable(::core::include!(::core::concat!(
                ::core::env!("OUT_DIR"),
                "/cudajit_device_code.rs"
            )))
        }
    };
}

/// The numeric traits that bound a generic kernel's type parameters
/// (`fn axpy<T: Float>(..)`): what a kernel may do with a `T`. See the README's
/// "Generic kernels".
pub use kernel_device::device_api::generic::{Float, Int, Num};

/// Half precision, as kernels use it: the `half` crate's `f16` (IEEE binary16) and
/// `bf16` (bfloat16) are kernel scalars, parameters and slice elements (README: "Half
/// precision"). `cudajit::f16` is `half::f16`.
pub use kernel_device::half::{self, bf16, f16};

/// FP8 E4M3 (OCP), the storage type of Hopper's fp8 tensor-core inputs: kernels copy
/// it into shared tiles for `wgmma_m64nNk32_f32_e4m3`; the host converts
/// (`e4m3::from_f32` rounds to nearest even and saturates, `to_f32` is exact).
pub use kernel_device::e4m3;

/// Complex numbers, as kernels use them: num-complex's `Complex<f32>` and
/// `Complex<f64>` are kernel values and slice elements, with its arithmetic and
/// methods (`conj`, `norm`, `arg`, `exp`, `ln`, `sqrt`, `powf`, ...).
pub use kernel_device::num_complex::{self, Complex, Complex32, Complex64};

/// The traits behind `launch!`'s argument checks and a kernel's crate constants. They
/// are public so that compile errors name them by a path users can read
/// (`cudajit::launch_traits::KernelSlice`); their implementations are cudajit's.
pub mod launch_traits {
    pub use kernel_device::source::{DeviceMethodOwner, ToConstValue};
    pub use kernel_host::__private::{
        BoundscheckFalseLaunch, KernelSlice, KernelSliceMut, NdArg, NdArgMut, SliceArg, SliceArgMut,
    };

    /// Never implemented: the value `vecadd` of a `#[kernel] fn vecadd` is a fn whose
    /// `where for<'call> &'call vecadd: Callable<vecadd>` never holds, so calling the
    /// kernel like a function, `vecadd(&a, &b, &mut c)` or `spin(3)`, fails on this bound,
    /// at the call, with a message pointing to `launch!` (instead of rustc's "expected
    /// function"). The rest of the kernel is the type `vecadd` (`vecadd::source()`,
    /// `vecadd::launch(config, args..)`).
    #[diagnostic::on_unimplemented(
        message = "`{K}` is a kernel: it cannot be called like a function, the host launches it with `launch!({K}[grid, block](..))`",
        label = "a kernel is launched, not called",
        note = "`launch!` gives the kernel its grid and block shape and copies its slices to the device and back",
        note = "in a kernel or a `#[device]` function, call a `#[device]` fn instead: move the code both need into one"
    )]
    pub trait Callable<K> {}

    /// A generic kernel's `T: Float` as its launcher declares it (it implies `Float`):
    /// `launch!(k::<i32>[..](..))` is one error in these words.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a float type: this generic kernel's type parameter is `T: Float`",
        label = "not `f32`, `f64`, `f16` or `bf16`",
        note = "`Float` kernels run with `f32`, `f64`, `f16` or `bf16`; for integers, bound the parameter by `Int` or `Num`"
    )]
    pub trait FloatArg: crate::Float + kernel_host::DeviceScalar {}
    #[diagnostic::do_not_recommend]
    impl<T: crate::Float + kernel_host::DeviceScalar> FloatArg for T {}

    /// A generic kernel's `T: Int` as its launcher declares it: see [`FloatArg`].
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not an integer type: this generic kernel's type parameter is `T: Int`",
        label = "not `i8`..`i64`, `isize`, `u8`..`u64` or `usize`",
        note = "`Int` kernels run with the integer types; for floats, bound the parameter by `Float` or `Num`"
    )]
    pub trait IntArg: crate::Int + kernel_host::DeviceScalar {}
    #[diagnostic::do_not_recommend]
    impl<T: crate::Int + kernel_host::DeviceScalar> IntArg for T {}

    /// A generic kernel's `T: Num` as its launcher declares it: see [`FloatArg`].
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a number type: this generic kernel's type parameter is `T: Num`",
        label = "not an integer or float type",
        note = "`Num` kernels run with the integer and float types (not `bool`: pass it as a `u8`, or write a kernel for it)"
    )]
    pub trait NumArg: crate::Num + kernel_host::DeviceScalar {}
    #[diagnostic::do_not_recommend]
    impl<T: crate::Num + kernel_host::DeviceScalar> NumArg for T {}

    /// The mark of a function a kernel calls that is not `#[device]` (or does not
    /// exist): never a device function, so the call is reported in cudajit's words,
    /// and compile errors name this type, never a generated one.
    #[derive(Clone, Copy, Debug)]
    pub struct NotADeviceFunction;
}

pub mod random;

pub use kernel_host::hl::{
    compact, compact_on, exclusive_scan, exclusive_scan_into, exclusive_scan_into_on,
    exclusive_scan_on, inclusive_scan, inclusive_scan_into, inclusive_scan_into_on,
    inclusive_scan_on, map, map2, map2_into, map2_into_on, map2_on, map_into, map_into_on, map_on,
    map_reduce, map_reduce_indexed, map_reduce_indexed_on, map_reduce_on, max, max_into,
    max_into_on, max_on, min, min_into, min_into_on, min_on, product, product_into,
    product_into_on, product_on, reduce, reduce_into, reduce_into_on, reduce_on, sum, sum_into,
    sum_into_on, sum_on, DeviceFn, Input, IntoDeviceFn, Numeric, ReduceValue,
};
/// Whole-array operations without writing a kernel (README: "High-level operations"):
/// reductions, scans, compaction and elementwise maps built from `#[device]`
/// functions, on a GPU or the simulator.
pub use kernel_host::hl::{
    max_axis, max_axis_on, min_axis, min_axis_on, product_axis, product_axis_on, reduce_axis,
    reduce_axis_on, sum_axis, sum_axis_on, AxisInput,
};

/// A `#[device]` function as a value for the high-level operations:
/// `cudajit::reduce(&x, device_fn!(add), 0.0)`. Takes the function's path
/// (`device_fn!(ops::add)`); the function must carry `#[device]`.
#[macro_export]
macro_rules! device_fn {
    ($($f:ident)::+) => {
        $crate::DeviceFn::__new(&$($f)::+::__CUDAJIT_FN, $($f)::+)
    };
}

/// What kernels and the code launching them usually need: `use cudajit::prelude::*;`.
pub mod prelude {
    pub use crate::launch;
    pub use crate::random::{
        xoroshiro128p_normal_f32, xoroshiro128p_normal_f64, xoroshiro128p_uniform_f32,
        xoroshiro128p_uniform_f64,
    };
    pub use kernel_device::device_api::{
        block_dim, block_idx, dynamic_shared, grid_dim, grid_sync, shared_array, sync_threads,
        thread_idx, Dim3, DynamicShared,
    };
    // Barriers, fences, atomics, warp operations and GPU-only math (with their
    // element-type traits).
    pub use kernel_device::device_api::generic::{Float, Int, Num};

    pub use kernel_device::device_api::Nd;
    pub use kernel_device::device_api::{atomic::*, math::*, sync::*, warp::*};
    // tensor cores: fragments, `mma_sync`, `ldmatrix`/`stmatrix` (docs/tensor_cores.md)
    pub use kernel_device::device_api::mma::*;
    // Hopper: clusters (docs/hopper.md)
    pub use kernel_device::device_api::cluster::*;
    pub use kernel_device::e4m3;
    /// The half types and complex numbers kernels compute with (`cudajit::f16` is
    /// `half::f16`, `cudajit::Complex` is `num_complex::Complex`).
    pub use kernel_device::half::{bf16, f16};
    pub use kernel_device::num_complex::Complex;
    pub use kernel_host::{
        Backend, Device, DeviceArray, DeviceNd, Event, Graph, LaunchConfig, PinnedBuffer, Stream,
    };
    pub use kernel_macros::{device, kernel, vectorize, DeviceCopy};

    #[cfg(doc)]
    pub use crate::doc_only::{grid, grid_size};
}

/// Items that exist only in the documentation: inside `#[kernel]`/`#[device]` bodies the
/// macro rewrites `grid(N)` and `grid_size(N)` (whose type depends on `N`), so there is
/// nothing to call outside them.
#[cfg(doc)]
pub mod doc_only {
    /// The thread's absolute position in the grid: `grid(1)` is a `usize`
    /// (`thread_idx().x + block_idx().x * block_dim().x`), `grid(2)` a `(usize, usize)`,
    /// `grid(3)` a `(usize, usize, usize)`. `ndim` must be the literal 1, 2 or 3.
    /// Only valid inside `#[kernel]` and `#[device]` functions.
    pub fn grid(ndim: u32) -> ! {
        unreachable!("grid({ndim}) exists only inside #[kernel] / #[device] functions")
    }

    /// The number of threads in the grid along each axis (`block_dim() * grid_dim()`),
    /// shaped like [`grid`]: the stride of a grid-stride loop.
    pub fn grid_size(ndim: u32) -> ! {
        unreachable!("grid_size({ndim}) exists only inside #[kernel] / #[device] functions")
    }
}

/// Launches a kernel with Numba's shape: `launch!(k[grid, block](args..))` or
/// `launch!(k[grid, block, stream, shared_bytes](args..))` (also `[grid, block, stream]`).
/// `grid` and `block` take an integer, a pair or a triple; `k` may be a path. Expands to
/// `<k>::args(args..).launch(<k>::launch_config(grid, block)...)` (the same as
/// `k::launch(config, args..)`; rustc then counts only the kernel's arguments when their
/// number is wrong, and a mistake in the arguments or the shape is reported at the
/// user's kernel, never inside cudajit) and returns `cudajit::Result<()>`.
#[macro_export]
macro_rules! launch {
    // A generic kernel named with its arguments: `launch!(tile::<f32, 16>[g, b](..))`.
    // `launch_generics!` passes the launch through, or reports a const generic argument
    // taken from a run-time value (`let n = 4; k::<n>`) in cudajit's words. A concrete
    // instantiation (`k::<f32, 16>`, not `k::<T>`) registers to compile while a GPU opens.
    ($($kernel:ident)::+ :: < $($generic:tt),+ $(,)? > [$grid:expr, $block:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $crate::__private::launch_generics!([$($generic),+] ($crate) $($kernel)::+ =>
            $($kernel)::+::args::<$($generic),+>($($arg),*).launch($($kernel)::+::launch_config($grid, $block))
        )
    };
    ($($kernel:ident)::+ :: < $($generic:tt),+ $(,)? > [$grid:expr, $block:expr, $stream:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $crate::__private::launch_generics!([$($generic),+] ($crate) $($kernel)::+ =>
            $($kernel)::+::args::<$($generic),+>($($arg),*).launch($($kernel)::+::launch_config($grid, $block).stream(&$stream))
        )
    };
    ($($kernel:ident)::+ :: < $($generic:tt),+ $(,)? > [$grid:expr, $block:expr, $stream:expr, $shared:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $crate::__private::launch_generics!([$($generic),+] ($crate) $($kernel)::+ =>
            $($kernel)::+::args::<$($generic),+>($($arg),*).launch(
                $($kernel)::+::launch_config($grid, $block).stream(&$stream).shared_bytes($shared),
            )
        )
    };
    // Hopper: clusters: `launch!(k[grid, block, cluster = (2, 1, 1)](..))`.
    ($kernel:path [$grid:expr, $block:expr, cluster = $cluster:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        <$kernel>::args($($arg),*).launch(<$kernel>::launch_config($grid, $block).cluster($cluster))
    };
    ($kernel:path [$grid:expr, $block:expr, cluster = $cluster:expr, $stream:expr, $shared:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        <$kernel>::args($($arg),*).launch(
            <$kernel>::launch_config($grid, $block).cluster($cluster).stream(&$stream).shared_bytes($shared),
        )
    };
    ($kernel:path [$grid:expr, $block:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        <$kernel>::args($($arg),*).launch(<$kernel>::launch_config($grid, $block))
    };
    ($kernel:path [$grid:expr, $block:expr, $stream:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        <$kernel>::args($($arg),*).launch(<$kernel>::launch_config($grid, $block).stream(&$stream))
    };
    ($kernel:path [$grid:expr, $block:expr, $stream:expr, $shared:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        <$kernel>::args($($arg),*).launch(
            <$kernel>::launch_config($grid, $block).stream(&$stream).shared_bytes($shared),
        )
    };
    ($($other:tt)*) => {
        ::core::compile_error!(
            "`launch!` takes a kernel, its launch shape in brackets and its arguments: `launch!(k[grid, block](args..))`, `launch!(k[grid, block, stream, shared_bytes](args..))` or `launch!(k[grid, block, cluster = (x, y, z)](args..))`"
        )
    };
}

/// Names instantiations of generic kernels for ahead-of-time builds (`cudajit-build`,
/// `cargo cudajit build-device`, `cargo xtask build-device`), which compile each: `cudajit::instantiate!(axpy::<f32>, axpy::<f64>,
/// transpose::<f32, 16>);` at module level. rustc checks each against the kernel's
/// bounds. A launch that names its instantiation (`launch!(k::<f32, 16>[..](..))`)
/// is found without it; one that infers it from the arguments needs the list, or is
/// compiled at its first launch (and then kept in the disk cache). Each listed
/// instantiation is also compiled while a GPU opens at run time, as non-generic kernels
/// are (README: "Kernels compile while the GPU opens"), as is one a `launch!` names with
/// scalar types and literals (`k::<f32, 16>`; not `k::<T>` in a generic function).
#[macro_export]
macro_rules! instantiate {
    ($($($kernel:ident)::+ :: < $($generic:tt),+ $(,)? >),+ $(,)?) => {
        const _: () = {
            $( let _ = $($kernel)::+::__cudajit_instance::<$($generic),+>; )+
        };
        $(
            $crate::__private::inventory::submit! {
                $crate::__private::RegisteredKernel(
                    || $($kernel)::+::__cudajit_instance::<$($generic),+>().0
                )
            }
        )+
    };
}

/// The items of a `#[kernel]`'s type that do not depend on its parameters, given the
/// launcher's generic parameters as declared and as used (both empty for a kernel that
/// is not generic): `#[kernel]` writes one invocation in the kernel's `impl` block
/// instead of these items' tokens, which rustc then transcribes, so that the macro's
/// share of a crate's `cargo check` stays small (issue 27).
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_items {
    ([$($decl:tt)*] [$($use:tt)*]) => {
        // What a call of this kernel from device code resolves to: it passes the
        // `#[device]` check, because the call itself fails (the kernel's fn carries a
        // bound that never holds) and one mistake gets one error, in the words of a
        // kernel called like a function. It has no source to compile.
        #[doc(hidden)]
        pub const __CUDAJIT_MARK: $crate::__private::IsDevice = $crate::__private::IsDevice;
        #[doc(hidden)]
        pub const __CUDAJIT_FN: $crate::__private::FnSource =
            $crate::__private::FnSource::NOT_A_DEVICE_FUNCTION;

        // The kernel's loaded modules, one per device (a generic kernel's
        // instantiations have their own: see `instances`).
        #[doc(hidden)]
        pub fn cache() -> &'static $crate::__private::KernelCache {
            static CACHE: $crate::__private::KernelCache = $crate::__private::KernelCache::new();
            &CACHE
        }

        $crate::__kernel_named_instance!([$($decl)*]);

        /// The most blocks a grid of `block`-shaped blocks may have when this kernel
        /// is launched cooperatively (it calls `grid_sync()`) on the default device
        /// without dynamic shared memory: all of them must be resident at once.
        /// Numba's `kernel.max_cooperative_grid_blocks(blockdim)`. Compiles the
        /// kernel if needed.
        pub fn max_cooperative_grid_blocks<$($decl)*>(
            block: impl ::core::convert::Into<$crate::Dim>,
        ) -> $crate::Result<u32> {
            Self::max_cooperative_grid_blocks_for::<$($use)*>($crate::LaunchConfig::new(1u32, block))
        }

        /// As [`Self::max_cooperative_grid_blocks`], for `config`'s block shape,
        /// dynamic shared memory and stream's device (its grid is ignored).
        pub fn max_cooperative_grid_blocks_for<$($decl)*>(
            config: $crate::LaunchConfig<'_>,
        ) -> $crate::Result<u32> {
            let (source, cache) = Self::__cudajit_instance::<$($use)*>();
            $crate::__private::max_cooperative_grid_blocks(source, cache, config)
        }
    };
}

/// `__cudajit_named_instance(args)`: the source of the kernel's instantiation with
/// `args`, which a `launch!` naming it with scalar types and literals registers to compile
/// while a GPU opens (`launch_generics!`). Without the launcher's bounds, so that a
/// launch naming a wrong instantiation (`k::<i32>` of a `Float` kernel) gets one error,
/// its own; the registration never runs then. A kernel that is not generic has one
/// source.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_named_instance {
    ([]) => {
        #[doc(hidden)]
        pub fn __cudajit_named_instance(
            _: &'static [$crate::__private::GenericArg],
        ) -> &'static $crate::__private::FnSource {
            Self::source()
        }
    };
    ([$($decl:tt)+]) => {
        #[doc(hidden)]
        pub fn __cudajit_named_instance(
            args: &'static [$crate::__private::GenericArg],
        ) -> &'static $crate::__private::FnSource {
            Self::instances().get(Self::source(), args).0
        }
    };
}

/// The documentation of each `#[kernel]`'s `args` (one invocation in the expansion
/// instead of each line's `#[doc]` tokens: issue 27).
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_args_doc {
    () => {
        "This kernel's arguments, converted for a launch; `.launch(config)` runs it. What \
         `launch!` expands to: the arguments come alone, so that rustc counts only those when \
         their number is wrong. For a `boundscheck = false` kernel it is a \
         `BoundscheckFalseLaunch`, whose `launch` is `unsafe`: so `launch!` of such a kernel \
         must sit in an `unsafe {}` block, and rustc's error without one names that type."
    };
}

/// What generated code calls; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use kernel_device::device_api;
    pub use kernel_device::ir::layout::{
        field_offset, scalar_layout, struct_layout, struct_padding, Layout,
    };
    pub use kernel_device::ir::{
        EnumDef, EnumVariant, FunctionOptions, LaunchBounds, ScalarType, StructDef, StructField,
        Type,
    };
    pub use kernel_device::source::{
        first_of_a_call_cycle, ConstItem, DeviceCopy, DeviceMethodEntry, DeviceMethodOwner,
        FnSource, IsDevice, SourceKind, StructItem, ToConstValue,
    };
    pub use kernel_host::__private::*;
    pub use kernel_host::aot_support::EmbeddedTable;
    pub use kernel_macros::launch_generics;

    /// What `#[vectorize]`'s `apply` functions call.
    pub mod hl {
        pub use kernel_host::hl::*;
        pub use kernel_host::{DeviceArray, DeviceScalar, Result, Stream};
    }
}
