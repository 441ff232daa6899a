//! Typed stand-ins for the device intrinsics, called by the rustc-checked twin of each
//! kernel body (`use ::cudajit::__private::device_api::*` is its first statement).
//!
//! They exist so that rustc type-checks every kernel exactly as the frontend does:
//! `thread_idx().x` is a `u32`, `grid(2)` (rewritten by the macro to `grid_2()`, since
//! its result type depends on the literal) is a `(usize, usize)`. On the host they read
//! a thread-local "current thread", all zeros with unit dimensions unless a CPU
//! simulator sets it through [`__set_thread`], so running a twin is meaningful too.

use std::cell::Cell;

/// The text of this module's files, for the test that holds them to the table of
/// intrinsics (`proc::intrinsics`: every intrinsic has a stand-in of its name here).
/// A file added to this module goes in the list.
#[doc(hidden)]
pub const SOURCES: &[&str] = &[
    include_str!("device_api.rs"),
    include_str!("device_api/sync.rs"),
    include_str!("device_api/atomic.rs"),
    include_str!("device_api/warp.rs"),
    include_str!("device_api/math.rs"),
    // async copies
    include_str!("device_api/async_copy.rs"),
    // tensor cores
    include_str!("device_api/mma.rs"),
    // Hopper
    include_str!("device_api/mbarrier.rs"),
    // Hopper: wgmma
    include_str!("device_api/wgmma.rs"),
    include_str!("device_api/wgmma_types.rs"),
    // Hopper: TMA
    include_str!("device_api/tma.rs"),
    // Hopper: clusters
    include_str!("device_api/cluster.rs"),
];

// async copies
pub mod async_copy;
pub mod atomic;
// Hopper: clusters
pub(crate) mod bf16_fma;
pub mod cluster;
pub mod generic;
mod generic_half;
pub(crate) mod half_rounding;
pub mod math;
// Hopper
pub mod mbarrier;
// tensor cores
pub mod mma;
pub mod nd;
pub mod sync;
pub mod warp;
// Hopper: wgmma
pub mod wgmma;
pub mod wgmma_types;
// Hopper: TMA
pub mod tma;
// async copies
pub use async_copy::*;
pub use atomic::*;
// Hopper: clusters
pub use cluster::*;
pub use generic::{ConstLenArray, Float, Int, Num};
pub use math::*;
// Hopper
pub use mbarrier::*;
// tensor cores
pub use mma::*;
pub use nd::Nd;
pub use sync::*;
pub use warp::*;
// Hopper: wgmma
pub use wgmma::*;
pub use wgmma_types::*;
// Hopper: TMA
pub use tma::*;

/// A CUDA `dim3`: three `u32` extents or indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }
}

#[derive(Clone, Copy)]
struct SimThread {
    thread_idx: Dim3,
    block_idx: Dim3,
    block_dim: Dim3,
    grid_dim: Dim3,
}

const ONE: Dim3 = Dim3::new(1, 1, 1);
const ZERO: Dim3 = Dim3::new(0, 0, 0);

thread_local! {
    static CURRENT: Cell<SimThread> = const {
        Cell::new(SimThread { thread_idx: ZERO, block_idx: ZERO, block_dim: ONE, grid_dim: ONE })
    };
}

fn current() -> SimThread {
    CURRENT.with(|c| c.get())
}

/// Sets which GPU thread the calling host thread stands for (for a CPU simulator that
/// runs twins). Not part of the user API.
#[doc(hidden)]
pub fn __set_thread(thread_idx: Dim3, block_idx: Dim3, block_dim: Dim3, grid_dim: Dim3) {
    CURRENT.with(|c| {
        c.set(SimThread {
            thread_idx,
            block_idx,
            block_dim,
            grid_dim,
        })
    });
}

/// The thread's index within its block (`threadIdx`).
pub fn thread_idx() -> Dim3 {
    current().thread_idx
}

/// The block's index within the grid (`blockIdx`).
pub fn block_idx() -> Dim3 {
    current().block_idx
}

/// Threads per block (`blockDim`).
pub fn block_dim() -> Dim3 {
    current().block_dim
}

/// Blocks per grid (`gridDim`).
pub fn grid_dim() -> Dim3 {
    current().grid_dim
}

/// Absolute index along one axis, widened before multiplying as the backend does.
fn absolute(t: u32, b: u32, d: u32) -> usize {
    t as usize + b as usize * d as usize
}

/// `grid(1)`: `thread_idx().x + block_idx().x * block_dim().x`, as `usize`.
pub fn grid_1() -> usize {
    let s = current();
    absolute(s.thread_idx.x, s.block_idx.x, s.block_dim.x)
}

/// `grid(2)`: the absolute (x, y) position.
pub fn grid_2() -> (usize, usize) {
    let s = current();
    (
        absolute(s.thread_idx.x, s.block_idx.x, s.block_dim.x),
        absolute(s.thread_idx.y, s.block_idx.y, s.block_dim.y),
    )
}

/// `grid(3)`: the absolute (x, y, z) position.
pub fn grid_3() -> (usize, usize, usize) {
    let s = current();
    (
        absolute(s.thread_idx.x, s.block_idx.x, s.block_dim.x),
        absolute(s.thread_idx.y, s.block_idx.y, s.block_dim.y),
        absolute(s.thread_idx.z, s.block_idx.z, s.block_dim.z),
    )
}

/// `grid_size(1)`: `block_dim().x * grid_dim().x`, the stride of a grid-stride loop.
pub fn grid_size_1() -> usize {
    let s = current();
    s.block_dim.x as usize * s.grid_dim.x as usize
}

/// `grid_size(2)`.
pub fn grid_size_2() -> (usize, usize) {
    let s = current();
    (
        s.block_dim.x as usize * s.grid_dim.x as usize,
        s.block_dim.y as usize * s.grid_dim.y as usize,
    )
}

/// `grid_size(3)`.
pub fn grid_size_3() -> (usize, usize, usize) {
    let s = current();
    (
        s.block_dim.x as usize * s.grid_dim.x as usize,
        s.block_dim.y as usize * s.grid_dim.y as usize,
        s.block_dim.z as usize * s.grid_dim.z as usize,
    )
}

/// Barrier for the threads of a block (`__syncthreads()`). A no-op for one simulated
/// thread; a simulator that runs whole blocks replaces the scheduling around it.
pub fn sync_threads() {}

/// Barrier for every thread of the grid (Numba's `cuda.cg.this_grid().sync()`): no
/// thread continues until all threads of all blocks have called it, and writes to
/// global memory before it are visible to every thread after it. A kernel that calls
/// it, directly or through a device function, is launched cooperatively by `launch!`
/// (all blocks resident at once; a grid larger than that is an `Err`, see
/// `max_cooperative_grid_blocks`). As in CUDA, every thread of every block must call
/// it: a panic elsewhere in the grid, or a block that never arrives (its threads
/// returned early) for 10 s, ends the launch with an `Err` rather than a hang.
/// A no-op for one simulated thread.
pub fn grid_sync() {}

/// A cursor over the launch's dynamic shared memory (`shared_bytes` in
/// `launch!(k[grid, block, stream, shared_bytes](..))`), from which typed slices are
/// carved: `let mut smem = dynamic_shared(); let a = smem.take::<f32>(n);`.
/// Each `dynamic_shared()` starts at byte 0 of the same memory, as CUDA's
/// `extern __shared__`: two cursors see the same bytes.
///
/// On the device, `take` aligns to the element type and panics past `shared_bytes`. This
/// host stand-in only has to type-check kernels (the twin is never the code that runs on
/// a GPU): it hands out fresh zero-filled memory, so nothing here is undefined behaviour.
#[derive(Debug, Default)]
pub struct DynamicShared {
    _cursor: (),
}

/// The element types dynamic shared memory can hold: the kernel scalars.
pub trait SharedScalar: Copy + Default + 'static {}
macro_rules! shared_scalars {
    ($($t:ty)*) => { $(impl SharedScalar for $t {})* };
}
shared_scalars!(bool i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64 half::f16 half::bf16 crate::e4m3);

impl DynamicShared {
    /// The next `count` elements of type `T`, aligned to `align_of::<T>()`.
    pub fn take<T: SharedScalar>(&mut self, count: usize) -> &'static mut [T] {
        Box::leak(vec![T::default(); count].into_boxed_slice())
    }
}

/// A cursor at the start of the launch's dynamic shared memory.
pub fn dynamic_shared() -> DynamicShared {
    DynamicShared::default()
}

/// Array types `shared_array` makes: `[T; N]` and `[[T; N]; M]` of a scalar `T`.
pub trait SharedArray: 'static {
    /// The array with every element zero (what the host stand-in hands out).
    fn zeroed() -> Self;
}

impl<T: SharedScalar, const N: usize> SharedArray for [T; N] {
    fn zeroed() -> Self {
        [T::default(); N]
    }
}

impl<T: SharedScalar, const N: usize, const M: usize> SharedArray for [[T; N]; M] {
    fn zeroed() -> Self {
        [[T::default(); N]; M]
    }
}

/// A block-shared array (CUDA's `__shared__`, Numba's `cuda.shared.array`): each call
/// site is one allocation per block, uninitialised on the GPU (reading an element no
/// thread wrote gives an unspecified value). `A` is `[T; N]` or `[[T; N]; M]` with
/// constant lengths: `shared_array::<[f32; 256]>()`, or
/// `let tile: &mut [[f32; 33]; 32] = shared_array();`.
///
/// On the host (the rustc-checked twin) it returns a fresh zero-filled array, so a
/// twin that runs is well defined.
pub fn shared_array<A: SharedArray>() -> &'static mut A {
    Box::leak(Box::new(A::zeroed()))
}

// Hopper: TMA
/// A block-shared array as [`shared_array`] makes, its first element aligned to `ALIGN`
/// bytes (a power of two from 16 to 1024): what a swizzled TMA destination or wgmma
/// operand needs, `shared_array_aligned::<[bf16; 4096], 1024>()` for the 128-byte
/// swizzle. On the host the twin's array is an ordinary one.
pub fn shared_array_aligned<A: SharedArray, const ALIGN: usize>() -> &'static mut A {
    const {
        assert!(
            ALIGN.is_power_of_two() && ALIGN >= 16 && ALIGN <= 1024,
            "a shared array's alignment is a power of two from 16 to 1024 bytes"
        )
    };
    shared_array::<A>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel's rustc-checked twin glob-imports `in_kernel`, which shadows the
    /// module's own names; a call the front end takes for a `#[device]` function call
    /// must then not name one of its functions, or the twin would check the call
    /// against the stand-in while the kernel compiles the user's function (the macro
    /// calls a `#[device]` fn of the kernel's own module by its bare name, unrouted).
    #[test]
    fn no_function_the_twin_imports_is_taken_for_a_device_function_call() {
        let sources = [
            include_str!("device_api.rs"),
            include_str!("device_api/async_copy.rs"),
            include_str!("device_api/atomic.rs"),
            include_str!("device_api/cluster.rs"),
            include_str!("device_api/math.rs"),
            include_str!("device_api/mbarrier.rs"),
            include_str!("device_api/mma.rs"),
            include_str!("device_api/sync.rs"),
            include_str!("device_api/warp.rs"),
            include_str!("device_api/wgmma.rs"),
            include_str!("device_api/wgmma_types.rs"),
            include_str!("device_api/tma.rs"),
        ];
        let mut names = Vec::new();
        for source in sources {
            for line in source.lines() {
                let rest = ["pub fn ", "pub const fn ", "pub unsafe fn "]
                    .iter()
                    .find_map(|prefix| line.strip_prefix(prefix));
                let Some(rest) = rest else {
                    continue;
                };
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !crate::front::twin_glob_may_shadow(&name) {
                    names.push(name);
                }
            }
        }
        assert!(names.len() >= 100, "{} functions found", names.len());
        let calls: Vec<String> = names.iter().map(|n| format!("{n}();")).collect();
        let item: syn::ItemFn =
            syn::parse_str(&format!("fn k() {{ {} }}", calls.concat())).expect("parses");
        let taken: Vec<String> = crate::front::device_calls(&item)
            .iter()
            .map(|p| quote::ToTokens::to_token_stream(p).to_string())
            .collect();
        assert!(taken.is_empty(), "taken for device calls: {taken:?}");
    }

    #[test]
    fn shared_arrays_on_the_host_are_zeroed() {
        let tile: &mut [[f32; 3]; 2] = shared_array();
        tile[1][2] = 4.0;
        assert_eq!(tile[0], [0.0; 3]);
        let flags = shared_array::<[bool; 4]>();
        assert!(!flags[3]);
    }

    #[test]
    fn defaults_are_thread_zero_of_one() {
        assert_eq!(grid_1(), 0);
        assert_eq!(grid_size_2(), (1, 1));
        assert_eq!(block_dim(), Dim3::new(1, 1, 1));
    }

    #[test]
    fn set_thread_drives_grid() {
        __set_thread(
            Dim3::new(3, 1, 0),
            Dim3::new(2, 4, 0),
            Dim3::new(256, 8, 1),
            Dim3::new(10, 5, 1),
        );
        assert_eq!(grid_1(), 3 + 2 * 256);
        assert_eq!(grid_2(), (515, 1 + 4 * 8));
        assert_eq!(grid_size_1(), 2560);
        assert_eq!(thread_idx().x, 3);
    }

    #[test]
    fn dynamic_shared_stand_in_hands_out_zeroed_slices() {
        let mut smem = dynamic_shared();
        let a = smem.take::<f32>(3);
        let b = smem.take::<u64>(2);
        a[2] = 1.0;
        b[1] = 7;
        assert_eq!((a.len(), b.len(), a[0], b[0]), (3, 2, 0.0, 0));
    }
}

/// What a kernel's rustc-checked twin imports (`use ..::device_api::in_kernel::*`): every
/// intrinsic, but none of this module's module names. The private items below shadow
/// them in this glob, so a user's own `mod math` (or `warp`, `atomic`, `sync`, `nd`,
/// `generic`) stays the only `math` a kernel sees: a glob written by a macro cannot
/// shadow a user's name, rustc calls the two ambiguous instead (E0659).
#[doc(hidden)]
#[allow(
    dead_code,
    non_upper_case_globals,
    hidden_glob_reexports,
    clippy::module_inception
)]
pub mod in_kernel {
    pub use super::*;
    // async copies
    mod async_copy {}
    mod atomic {}
    mod cluster {}
    mod generic {}
    mod math {}
    mod mma {}
    mod nd {}
    mod sync {}
    mod warp {}
    mod in_kernel {}
    const SOURCES: () = ();
}
