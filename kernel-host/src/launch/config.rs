//! Launch configuration: grid and block shapes, stream and dynamic shared memory, and
//! the pure check of a configuration against a device's limits. The check runs before
//! any driver call so that a bad shape is an `Err` naming the broken limit, never a
//! driver error code or a silent non-launch, and it is unit-tested without a GPU.

use crate::device::stream::Stream;
use crate::error::{Error, Result};
use crate::executor::limits::DeviceLimits;

/// A grid or block shape: one, two or three extents.
///
/// Built from `u32`, `usize`, `u64`, `i32`, `i64`, or a pair/triple of those. The
/// conversion never fails or panics: a negative, zero or too-large extent is kept as
/// written and reported by the launch as [`Error::InvalidLaunch`]. (The extents are
/// `i128` so that every source integer fits exactly and the error can quote it.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    extents: [i128; 3],
}

impl Dim {
    pub fn new(x: impl DimExtent, y: impl DimExtent, z: impl DimExtent) -> Dim {
        Dim {
            extents: [x.extent(), y.extent(), z.extent()],
        }
    }

    /// The extents as written, `[x, y, z]` (missing ones are 1).
    pub fn extents(&self) -> [i128; 3] {
        self.extents
    }
}

/// An integer usable as one extent of a [`Dim`].
pub trait DimExtent: Copy {
    fn extent(self) -> i128;
}

macro_rules! dim_extent {
    ($($t:ty),*) => {$(
        impl DimExtent for $t {
            fn extent(self) -> i128 { self as i128 }
        }
        impl From<$t> for Dim {
            fn from(x: $t) -> Dim { Dim { extents: [x as i128, 1, 1] } }
        }
    )*};
}
dim_extent!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<A: DimExtent, B: DimExtent> From<(A, B)> for Dim {
    fn from((x, y): (A, B)) -> Dim {
        Dim::new(x, y, 1u32)
    }
}

impl<A: DimExtent, B: DimExtent, C: DimExtent> From<(A, B, C)> for Dim {
    fn from((x, y, z): (A, B, C)) -> Dim {
        Dim::new(x, y, z)
    }
}

impl<T: DimExtent> From<[T; 3]> for Dim {
    fn from([x, y, z]: [T; 3]) -> Dim {
        Dim::new(x, y, z)
    }
}

/// How to launch a kernel: Numba's `kernel[grid, block, stream, shared_bytes]`.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig<'a> {
    pub grid: Dim,
    pub block: Dim,
    /// `None`: the device's default stream (the legacy NULL stream).
    pub stream: Option<&'a Stream>,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: usize,
    // Hopper: clusters
    /// Blocks per thread-block cluster (`None`: no clusters); see [`Self::cluster`].
    pub cluster: Option<Dim>,
}

impl<'a> LaunchConfig<'a> {
    pub fn new(grid: impl Into<Dim>, block: impl Into<Dim>) -> Self {
        LaunchConfig {
            grid: grid.into(),
            block: block.into(),
            stream: None,
            shared_bytes: 0,
            cluster: None,
        }
    }

    // Hopper: clusters
    /// Launch in thread-block clusters of `cluster` blocks (sm_90; at most 8 blocks,
    /// and the grid a whole number of clusters on every axis): the blocks of a cluster
    /// run together and may `cluster_sync()` and read each other's shared memory.
    pub fn cluster(mut self, cluster: impl Into<Dim>) -> Self {
        self.cluster = Some(cluster.into());
        self
    }

    /// Launch on `stream` instead of the device's default stream.
    pub fn stream(mut self, stream: &'a Stream) -> Self {
        self.stream = Some(stream);
        self
    }

    /// Dynamic shared memory per block, in bytes.
    pub fn shared_bytes(mut self, bytes: usize) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// Checks the configuration against `limits`; on success returns the shapes in the
    /// form `cuLaunchKernel` takes. Pure: no driver call.
    #[inline]
    pub fn validate(&self, kernel: &str, limits: &DeviceLimits) -> Result<ValidLaunch> {
        validate(self.grid, self.block, self.shared_bytes, limits).map_err(|r| r.into_error(kernel))
    }

    /// [`Self::validate`], and the block within the kernel's own `launch_bounds` (the
    /// driver would refuse it with a bare `CUDA_ERROR_INVALID_VALUE`; the simulator
    /// refuses it the same way) and equal to its `block_dim` if it has one (its code
    /// takes the block's size as a constant).
    #[inline]
    pub fn validate_for(
        &self,
        source: &kernel_device::source::FnSource,
        limits: &DeviceLimits,
    ) -> Result<ValidLaunch> {
        let mut valid = self.validate(source.name, limits)?;
        // Hopper: clusters
        if let Some(cluster) = self.cluster {
            valid.cluster = crate::launch::cluster::checked_shape(
                source.name,
                cluster.extents(),
                valid.grid,
                limits,
            )?;
        }
        let threads: u32 = valid.block.iter().product();
        if let Some(required) = source.options.launch_bounds.and_then(|b| b.block_dim) {
            if valid.block != required {
                return Err(Rejection {
                    limit: "block_dim".into(),
                    detail: format!(
                        "block of {} x {} x {} threads, but the kernel is compiled for \
                         `block_dim` = {} x {} x {} and runs with no other",
                        valid.block[0],
                        valid.block[1],
                        valid.block[2],
                        required[0],
                        required[1],
                        required[2]
                    ),
                }
                .into_error(source.name));
            }
        }
        match source.options.launch_bounds {
            Some(bounds) if threads > bounds.max_threads => Err(Rejection {
                limit: "launch_bounds".into(),
                detail: format!(
                    "block of {threads} threads ({} x {} x {}) exceeds the kernel's \
                     `launch_bounds` of {} threads per block",
                    valid.block[0], valid.block[1], valid.block[2], bounds.max_threads
                ),
            }
            .into_error(source.name)),
            _ => Ok(valid),
        }
    }
}

/// A configuration that passed [`LaunchConfig::validate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValidLaunch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// More dynamic shared memory than the default 48 KiB window: the kernel's
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` must be raised first.
    pub needs_shared_opt_in: bool,
    // Hopper: clusters
    /// Blocks per cluster (`[1, 1, 1]`: no clusters).
    pub cluster: [u32; 3],
}

impl ValidLaunch {
    /// Counts the kernel's static shared memory (its shared arrays, fixed at compile
    /// time) with the launch's dynamic bytes: together they must fit the device's
    /// opt-in limit, and past the default 48 KiB window the kernel's dynamic-size
    /// attribute must be raised before the launch. Pure: no driver call.
    pub fn with_static_shared(
        mut self,
        kernel: &str,
        static_bytes: u32,
        limits: &DeviceLimits,
    ) -> Result<ValidLaunch> {
        let total = u64::from(self.shared_bytes) + u64::from(static_bytes);
        let opt_in_max = limits
            .max_shared_per_block_optin
            .max(limits.max_shared_per_block);
        if total > u64::from(opt_in_max) {
            return Err(Rejection {
                limit: "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN".into(),
                detail: format!(
                    "{} bytes of dynamic shared memory and the kernel's {static_bytes} bytes \
                     of static shared memory ({total} in all) exceed the device limit of \
                     {opt_in_max} bytes per block",
                    self.shared_bytes
                ),
            }
            .into_error(kernel));
        }
        self.needs_shared_opt_in = total > u64::from(limits.max_shared_per_block);
        Ok(self)
    }
}

/// A broken limit, before the kernel name is known.
struct Rejection {
    limit: String,
    detail: String,
}

impl Rejection {
    fn into_error(self, kernel: &str) -> Error {
        Error::InvalidLaunch {
            kernel: kernel.to_string(),
            limit: self.limit,
            detail: self.detail,
        }
    }
}

const AXES: [char; 3] = ['x', 'y', 'z'];
const BLOCK_ATTRS: [&str; 3] = [
    "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X",
    "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y",
    "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z",
];
const GRID_ATTRS: [&str; 3] = [
    "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X",
    "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y",
    "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z",
];

/// The launch path's check (issue 27): every limit compared without a branch, one
/// branch on the outcome; a shape that breaks one goes to [`validate_slow`], which
/// names it. Agrees with `validate_slow` on every shape (a unit test compares them).
#[inline]
fn validate(
    grid: Dim,
    block: Dim,
    shared_bytes: usize,
    limits: &DeviceLimits,
) -> std::result::Result<ValidLaunch, Rejection> {
    // `1 <= extent <= max` as one unsigned compare: 0 and negatives wrap to huge.
    let within = |extent: i128, max: u32| (extent as u128).wrapping_sub(1) < u128::from(max);
    let [gx, gy, gz] = grid.extents;
    let [bx, by, bz] = block.extents;
    let [mgx, mgy, mgz] = limits.max_grid_dim;
    let [mbx, mby, mbz] = limits.max_block_dim;
    let extents_fit = within(gx, mgx)
        & within(gy, mgy)
        & within(gz, mgz)
        & within(bx, mbx)
        & within(by, mby)
        & within(bz, mbz);
    // Exact when the extents fit u32 (three of them fit u128), and used only then (the
    // `&&`); wrapping for other extents is harmless.
    let threads = (bx as u128)
        .wrapping_mul(by as u128)
        .wrapping_mul(bz as u128);
    let opt_in_max = limits
        .max_shared_per_block_optin
        .max(limits.max_shared_per_block);
    let fits = extents_fit
        && ((threads <= u128::from(limits.max_threads_per_block))
            & (shared_bytes <= opt_in_max as usize));
    if !fits {
        return validate_slow(grid, block, shared_bytes, limits);
    }
    Ok(ValidLaunch {
        grid: [gx as u32, gy as u32, gz as u32],
        block: [bx as u32, by as u32, bz as u32],
        shared_bytes: shared_bytes as u32,
        needs_shared_opt_in: shared_bytes > limits.max_shared_per_block as usize,
        cluster: [1, 1, 1],
    })
}

/// [`validate`] with the broken limit named (or the same answer, if none is).
#[cold]
#[inline(never)]
fn validate_slow(
    grid: Dim,
    block: Dim,
    shared_bytes: usize,
    limits: &DeviceLimits,
) -> std::result::Result<ValidLaunch, Rejection> {
    let grid = check_extents("grid", grid, limits.max_grid_dim, GRID_ATTRS)?;
    let block = check_extents("block", block, limits.max_block_dim, BLOCK_ATTRS)?;
    // Each extent fits in u32 here, so the product fits in u64 without overflow.
    let threads = block.iter().map(|&b| u64::from(b)).product::<u64>();
    if threads > u64::from(limits.max_threads_per_block) {
        return Err(Rejection {
            limit: "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK".into(),
            detail: format!(
                "block of {threads} threads ({} x {} x {}) exceeds the device limit of {} threads per block",
                block[0], block[1], block[2], limits.max_threads_per_block
            ),
        });
    }
    let opt_in_max = limits
        .max_shared_per_block_optin
        .max(limits.max_shared_per_block);
    if shared_bytes > opt_in_max as usize {
        return Err(Rejection {
            limit: "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN".into(),
            detail: format!(
                "{shared_bytes} bytes of dynamic shared memory exceed the device limit of \
                 {opt_in_max} bytes per block"
            ),
        });
    }
    Ok(ValidLaunch {
        grid,
        block,
        // Fits: shared_bytes <= a u32 limit.
        shared_bytes: shared_bytes as u32,
        needs_shared_opt_in: shared_bytes > limits.max_shared_per_block as usize,
        cluster: [1, 1, 1],
    })
}

fn check_extents(
    what: &str,
    dim: Dim,
    max: [u32; 3],
    attrs: [&str; 3],
) -> std::result::Result<[u32; 3], Rejection> {
    let mut out = [1u32; 3];
    for axis in 0..3 {
        let extent = dim.extents[axis];
        if extent < 1 {
            return Err(Rejection {
                limit: format!("every {what} extent must be at least 1"),
                detail: format!(
                    "{what} {} of {extent} is {}",
                    AXES[axis],
                    if extent == 0 { "zero" } else { "negative" }
                ),
            });
        }
        if extent > i128::from(max[axis]) {
            return Err(Rejection {
                limit: attrs[axis].into(),
                detail: format!(
                    "{what} {} of {extent} exceeds the device limit of {}",
                    AXES[axis], max[axis]
                ),
            });
        }
        out[axis] = extent as u32;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: DeviceLimits = DeviceLimits::SM90_EXAMPLE;

    fn reject(config: LaunchConfig<'_>) -> (String, String) {
        match config.validate("k", &LIMITS) {
            Err(Error::InvalidLaunch { limit, detail, .. }) => (limit, detail),
            other => panic!("expected InvalidLaunch, got {other:?}"),
        }
    }

    #[test]
    fn accepts_common_shapes() {
        let ok = LaunchConfig::new(4096usize, 256u32)
            .validate("k", &LIMITS)
            .unwrap();
        assert_eq!(ok.grid, [4096, 1, 1]);
        assert_eq!(ok.block, [256, 1, 1]);
        assert!(!ok.needs_shared_opt_in);
        let ok = LaunchConfig::new((16, 16), (32u32, 32usize))
            .validate("k", &LIMITS)
            .unwrap();
        assert_eq!(ok.grid, [16, 16, 1]);
        assert_eq!(ok.block, [32, 32, 1]);
        let ok = LaunchConfig::new((2_147_483_647u32, 65535, 65535), (1, 1, 64))
            .validate("k", &LIMITS)
            .unwrap();
        assert_eq!(ok.grid, [2_147_483_647, 65535, 65535]);
        assert_eq!(ok.block, [1, 1, 64]);
    }

    /// The branch-free check and the one that names the limit agree on every shape
    /// near the limits (zero, negative, at and past each maximum, huge extents).
    #[test]
    fn fast_check_agrees_with_the_naming_check() {
        let edges = |max: u32| {
            let max = i128::from(max);
            [i128::MIN, -1, 0, 1, 2, max - 1, max, max + 1, 1 << 40]
        };
        let mut compared = 0;
        for gx in edges(LIMITS.max_grid_dim[0]) {
            for gy in edges(LIMITS.max_grid_dim[1]) {
                for bx in edges(LIMITS.max_block_dim[0]) {
                    for bz in edges(LIMITS.max_block_dim[2]) {
                        for shared in [0usize, 49152, 49153, 300_000, usize::MAX] {
                            let grid = Dim {
                                extents: [gx, gy, 1],
                            };
                            let block = Dim {
                                extents: [bx, 1, bz],
                            };
                            let fast = validate(grid, block, shared, &LIMITS);
                            let slow = validate_slow(grid, block, shared, &LIMITS);
                            match (fast, slow) {
                                (Ok(a), Ok(b)) => assert_eq!(a, b),
                                (Err(a), Err(b)) => {
                                    assert_eq!((a.limit, a.detail), (b.limit, b.detail))
                                }
                                (a, b) => panic!(
                                    "{grid:?} {block:?} {shared}: fast {:?} slow {:?}",
                                    a.is_ok(),
                                    b.is_ok()
                                ),
                            }
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(compared, 9 * 9 * 9 * 9 * 5);
    }

    #[test]
    fn rejects_2048_thread_block() {
        let (limit, detail) = reject(LaunchConfig::new(1, 2048));
        // 2048 first breaks the per-axis limit of 1024.
        assert_eq!(limit, "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X");
        assert!(detail.contains("block x of 2048"), "{detail}");
        let (limit, detail) = reject(LaunchConfig::new(1, (64, 32)));
        assert_eq!(limit, "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK");
        assert!(detail.contains("block of 2048 threads"), "{detail}");
        assert!(detail.contains("1024 threads per block"), "{detail}");
        let full = LaunchConfig::new(1, (64, 32))
            .validate("vecadd", &LIMITS)
            .unwrap_err()
            .to_string();
        assert!(
            full.starts_with("launch of `vecadd` rejected: block of 2048 threads"),
            "{full}"
        );
        assert!(
            full.ends_with("(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)"),
            "{full}"
        );
    }

    #[test]
    fn rejects_zero_and_negative_extents() {
        let (limit, detail) = reject(LaunchConfig::new(0, 256));
        assert!(limit.contains("at least 1"), "{limit}");
        assert_eq!(detail, "grid x of 0 is zero");
        let (_, detail) = reject(LaunchConfig::new(1, (8, 0)));
        assert_eq!(detail, "block y of 0 is zero");
        let (_, detail) = reject(LaunchConfig::new(-3i32, 256));
        assert_eq!(detail, "grid x of -3 is negative");
    }

    #[test]
    fn rejects_block_z_65_and_grid_y_65536() {
        let (limit, detail) = reject(LaunchConfig::new(1, (1, 1, 65)));
        assert_eq!(limit, "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z");
        assert_eq!(detail, "block z of 65 exceeds the device limit of 64");
        let (limit, detail) = reject(LaunchConfig::new((1, 65536), 32));
        assert_eq!(limit, "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y");
        assert_eq!(detail, "grid y of 65536 exceeds the device limit of 65535");
    }

    #[test]
    fn rejects_huge_values_without_overflow() {
        let (limit, detail) = reject(LaunchConfig::new(usize::MAX, 32));
        assert_eq!(limit, "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X");
        assert!(detail.contains(&usize::MAX.to_string()), "{detail}");
        let (limit, _) = reject(LaunchConfig::new(1, (u64::MAX, u64::MAX, u64::MAX)));
        assert_eq!(limit, "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X");
        let (_, detail) = reject(LaunchConfig::new(1, 32).shared_bytes(usize::MAX));
        assert!(detail.contains(&usize::MAX.to_string()), "{detail}");
    }

    #[test]
    fn shared_memory_limits() {
        let ok = LaunchConfig::new(1, 32)
            .shared_bytes(48 * 1024)
            .validate("k", &LIMITS)
            .unwrap();
        assert!(!ok.needs_shared_opt_in);
        let ok = LaunchConfig::new(1, 32)
            .shared_bytes(100_000)
            .validate("k", &LIMITS)
            .unwrap();
        assert!(ok.needs_shared_opt_in);
        assert_eq!(ok.shared_bytes, 100_000);
        let (limit, detail) = reject(LaunchConfig::new(1, 32).shared_bytes(232_449));
        assert_eq!(
            limit,
            "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"
        );
        assert!(detail.contains("232449 bytes"), "{detail}");
        assert!(detail.contains("232448 bytes per block"), "{detail}");
    }

    #[test]
    fn static_shared_memory_counts_toward_the_limits() {
        let valid = |dynamic: usize| {
            LaunchConfig::new(1, 32)
                .shared_bytes(dynamic)
                .validate("k", &LIMITS)
                .unwrap()
        };
        // 40 KiB static + 16 KiB dynamic: past the 48 KiB window, so opt in.
        let v = valid(16 * 1024)
            .with_static_shared("k", 40 * 1024, &LIMITS)
            .unwrap();
        assert!(v.needs_shared_opt_in);
        assert_eq!(v.shared_bytes, 16 * 1024);
        let v = valid(8 * 1024)
            .with_static_shared("k", 40 * 1024, &LIMITS)
            .unwrap();
        assert!(!v.needs_shared_opt_in);
        // 200 KiB dynamic fits alone, not with 40 KiB static.
        match valid(200 * 1024).with_static_shared("k", 40 * 1024, &LIMITS) {
            Err(Error::InvalidLaunch { limit, detail, .. }) => {
                assert_eq!(
                    limit,
                    "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"
                );
                assert!(detail.contains("204800 bytes of dynamic"), "{detail}");
                assert!(detail.contains("40960 bytes of static"), "{detail}");
                assert!(detail.contains("232448 bytes per block"), "{detail}");
            }
            other => panic!("expected InvalidLaunch, got {other:?}"),
        }
    }

    #[test]
    fn dim_conversions_keep_values() {
        assert_eq!(Dim::from(5u32).extents(), [5, 1, 1]);
        assert_eq!(Dim::from((2usize, 3i32)).extents(), [2, 3, 1]);
        assert_eq!(Dim::from((2u64, 3u32, 4usize)).extents(), [2, 3, 4]);
        assert_eq!(Dim::from([7i64, 8, 9]).extents(), [7, 8, 9]);
        assert_eq!(Dim::from(-1i32).extents(), [-1, 1, 1]);
    }
}
