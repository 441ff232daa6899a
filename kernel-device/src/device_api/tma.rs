//! Stand-ins for the kernel-side TMA calls (Hopper's bulk tensor copies; the rules are
//! `proc::tma_intrinsics`', the guide `docs/hopper.md`). A kernel takes the host's
//! `cudajit::TensorMap<T, N>` as `map: &TensorMap<T, N>`; the stand-ins accept any
//! [`TensorMapOf<T, N>`], so rustc holds a copy's tile to the map's element type and
//! its coordinates to the map's rank, as the frontend does. The host twin has no
//! shared memory a copy could land in: a copy there panics with the way out.

/// A tensor map of `N` axes of `T`, as a kernel parameter sees it (implemented by
/// `cudajit::TensorMap<T, N>` and `cudajit::TensorMapMut<T, N>`).
pub trait TensorMapOf<T, const N: usize> {}

/// A tensor map stores may write through (implemented by `cudajit::TensorMapMut<T, N>`
/// alone, which the host builds from the array's `&mut`).
pub trait TensorMapMutOf<T, const N: usize>: TensorMapOf<T, N> {}

fn device_only(what: &str) -> ! {
    panic!(
        "{what} copies between a tensor in device memory and shared memory; the host twin \
         has neither: run the kernel on a GPU or the simulator (`Device::simulator()`)"
    )
}

/// `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes`:
/// the box of `map` at `coords` (row-major, axis 0 outermost) into the shared `tile`,
/// its bytes completing on the mbarrier `bars[index]` (announce them first with
/// `mbarrier_arrive_expect_tx(bars, index, map_box_bytes)`).
pub fn tma_load<T, M: TensorMapOf<T, N> + ?Sized, const N: usize>(
    map: &M,
    tile: &mut [T],
    coords: [i32; N],
    bars: &mut [u64],
    index: usize,
) {
    let _ = (map, tile, coords, bars, index);
    device_only("`tma_load`")
}

/// `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster`
/// (sm_90a): the box of `map` at `coords` into the shared `tile` of every block of the
/// cluster whose rank is a bit of `mask` (at the same shared offset), its bytes
/// completing on each one's mbarrier `bars[index]`: every destination block announces
/// `map_box_bytes` on its own barrier.
pub fn tma_load_multicast<T, M: TensorMapOf<T, N> + ?Sized, const N: usize>(
    map: &M,
    tile: &mut [T],
    coords: [i32; N],
    bars: &mut [u64],
    index: usize,
    mask: u16,
) {
    let _ = (map, tile, coords, bars, index, mask);
    device_only("`tma_load_multicast`")
}

/// `cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group`: the shared `tile` to
/// the box of `map` at `coords` (the elements inside the tensor), in this thread's
/// current bulk group. Write the tile, `fence_proxy_async()`, then store; the map is a
/// `&TensorMapMut<T, N>`.
pub fn tma_store<T, M: TensorMapMutOf<T, N> + ?Sized, const N: usize>(
    map: &M,
    coords: [i32; N],
    tile: &[T],
) {
    let _ = (map, coords, tile);
    device_only("`tma_store`")
}

/// `prefetch.tensormap`: the map into the descriptor cache before its first copy.
pub fn tma_prefetch<T, M: TensorMapOf<T, N> + ?Sized, const N: usize>(map: &M) {
    let _ = map;
}

/// `cp.async.bulk.commit_group`: this thread's uncommitted stores become one group.
pub fn bulk_commit_group() {}

/// `cp.async.bulk.wait_group.read N`: all but the `N` newest bulk groups of this thread
/// have read their shared tiles, which may then be written again.
pub fn bulk_wait_group_read<const N: u32>() {}
