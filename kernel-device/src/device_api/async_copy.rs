//! Stand-ins for the asynchronous copies (PTX `cp.async`, sm_80+) and the vector loads
//! and stores (`ld.v2`/`ld.v4`). The guide with a complete pipelined GEMM tile loop is
//! `docs/async_copies.md`.
//!
//! The twin runs one simulated thread, so a copy here lands at once (a legal schedule of
//! the real one: the GPU may finish a copy at any time before its wait). The simulator
//! and the GPU run the IR, where the bytes land only at the `cp_async_wait*` that
//! retires the copy's group, and the simulator reports every access that could see the
//! difference.
//!
//! Element types are tied by cudajit's frontend (the source's element type must be the
//! destination's); the stand-ins take any two [`AsyncElement`]s so that `cp_async::<16>`
//! names only the byte count.

/// The scalars an asynchronous copy or a vector access moves: every kernel scalar but
/// `bool` (whose bytes are not all valid values).
pub trait AsyncElement: super::SharedScalar {
    /// Size in bytes.
    const SIZE: usize;
    /// The element's little-endian bytes (the GPU's byte order).
    fn write_bytes(self, out: &mut Vec<u8>);
    /// The element of `bytes[..SIZE]`.
    fn from_bytes(bytes: &[u8]) -> Self;
}

macro_rules! async_elements {
    ($($t:ty)*) => {$(
        impl AsyncElement for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn write_bytes(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn from_bytes(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes[..Self::SIZE].try_into().expect("SIZE bytes"))
            }
        }
    )*};
}
async_elements!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64 half::f16 half::bf16 crate::e4m3);

/// What every copy form does on the host: `valid` elements' bytes (at most `BYTES`)
/// from `src[src_index..]`, zeros for the rest of `BYTES`, into `dst[dst_index..]`.
fn copy_bytes<const BYTES: usize, D: AsyncElement, S: AsyncElement>(
    dst: &mut [D],
    dst_index: usize,
    src: &[S],
    src_index: usize,
    valid_elements: usize,
) {
    assert!(
        matches!(BYTES, 4 | 8 | 16) && BYTES % D::SIZE == 0 && D::SIZE == S::SIZE,
        "cp_async copies 4, 8 or 16 bytes of one element type"
    );
    let count = BYTES / D::SIZE;
    let valid = valid_elements.min(count);
    let mut bytes = Vec::with_capacity(BYTES);
    // Nothing is read when nothing is valid: the index may then be past the end.
    if valid > 0 {
        for &e in &src[src_index..src_index + valid] {
            e.write_bytes(&mut bytes);
        }
    }
    bytes.resize(BYTES, 0);
    for (k, out) in dst[dst_index..dst_index + count].iter_mut().enumerate() {
        *out = D::from_bytes(&bytes[k * D::SIZE..]);
    }
}

/// `cp.async.ca.shared.global`: starts copying `BYTES` bytes (4, 8 or 16) from
/// `src[src_index..]` in global memory to `dst[dst_index..]` in shared memory, cached
/// in L1 and L2. `dst` is a `shared_array` (or a row of one, or a `dynamic_shared`
/// slice); `src` a slice in global memory (a kernel parameter). Both ends are
/// bounds-checked and must be aligned to `BYTES` (a panic otherwise, as an index out of
/// bounds), in one check per copy.
///
/// The destination holds its old bytes until the copy's group is waited for: call
/// [`cp_async_commit`] after the copies of one stage, then [`cp_async_wait`] (or
/// [`cp_async_wait_all`]), then `sync_threads()` before other threads read them.
pub fn cp_async<const BYTES: usize>(
    dst: &mut [impl AsyncElement],
    dst_index: usize,
    src: &[impl AsyncElement],
    src_index: usize,
) {
    copy_bytes::<BYTES, _, _>(dst, dst_index, src, src_index, usize::MAX);
}

/// `cp.async.cg.shared.global`: as [`cp_async`], cached in L2 only (streaming tiles
/// that one block reads once). PTX has `.cg` for 16 bytes only.
pub fn cp_async_cg<const BYTES: usize>(
    dst: &mut [impl AsyncElement],
    dst_index: usize,
    src: &[impl AsyncElement],
    src_index: usize,
) {
    copy_bytes::<BYTES, _, _>(dst, dst_index, src, src_index, usize::MAX);
}

/// The zero-filling [`cp_async`] (PTX's `src-size` operand): reads only the first
/// `min(valid, BYTES / size_of::<T>())` elements of the source and writes zeros for the
/// rest of the `BYTES` bytes. The source is bounds-checked for the elements read only,
/// and not at all when `valid` is 0, so the edge tiles of a matrix need no branch:
/// pass `valid = n.saturating_sub(col)` and a tile past the edge fills with zeros.
pub fn cp_async_zfill<const BYTES: usize>(
    dst: &mut [impl AsyncElement],
    dst_index: usize,
    src: &[impl AsyncElement],
    src_index: usize,
    valid: usize,
) {
    copy_bytes::<BYTES, _, _>(dst, dst_index, src, src_index, valid);
}

/// [`cp_async_zfill`] with `.cg` (L2 only; 16 bytes).
pub fn cp_async_cg_zfill<const BYTES: usize>(
    dst: &mut [impl AsyncElement],
    dst_index: usize,
    src: &[impl AsyncElement],
    src_index: usize,
    valid: usize,
) {
    copy_bytes::<BYTES, _, _>(dst, dst_index, src, src_index, valid);
}

/// `cp.async.commit_group`: closes this thread's group of the copies issued since the
/// last commit (an empty group if none: waits still count it).
pub fn cp_async_commit() {}

/// `cp.async.wait_group N`: waits until at most `N` of this thread's committed groups
/// are still in flight (the `N` newest); the copies of every older group have landed.
/// Copies not yet committed are not waited for. Only this thread's copies: other
/// threads see them after a `sync_threads()` that follows their wait.
pub fn cp_async_wait<const N: u32>() {}

/// `cp.async.wait_all`: commits the copies not yet committed and waits for every group.
pub fn cp_async_wait_all() {}

/// Vector loads and stores on slices and arrays (global or shared): `N` consecutive
/// elements in one `ld.v{N}` / `st.v{N}` instruction. `N * size_of::<T>()` must be 4, 8
/// or 16 bytes (`[bf16; 2]`, `[f32; 2]`, `[f32; 4]`, `[f64; 2]`, `[bf16; 8]`), and the
/// address of element `index` a multiple of it: with a device allocation (256-byte
/// aligned) or a `shared_array` (16-byte aligned) that is `index % N == 0`. A misaligned or
/// out-of-bounds `index` panics with a message naming it, in one check per access.
pub trait VectorAccess<T: AsyncElement> {
    /// `[self[index], .., self[index + N - 1]]` in one load.
    fn load_vec<const N: usize>(&self, index: usize) -> [T; N];
    /// `self[index..index + N] = values` in one store.
    fn store_vec<const N: usize>(&mut self, index: usize, values: [T; N]);
}

fn check_vector<T: AsyncElement, const N: usize>(index: usize) {
    let bytes = N * T::SIZE;
    assert!(
        matches!(bytes, 4 | 8 | 16),
        "a vector access moves 4, 8 or 16 bytes, not {bytes}"
    );
    assert!(
        (index * T::SIZE) % bytes == 0,
        "vector access at index {index} is not aligned to {bytes} bytes"
    );
}

impl<T: AsyncElement> VectorAccess<T> for [T] {
    fn load_vec<const N: usize>(&self, index: usize) -> [T; N] {
        check_vector::<T, N>(index);
        std::array::from_fn(|k| self[index + k])
    }

    fn store_vec<const N: usize>(&mut self, index: usize, values: [T; N]) {
        check_vector::<T, N>(index);
        self[index..index + N].copy_from_slice(&values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_filling_copy_reads_only_the_valid_elements() {
        let src = [1.0f32, 2.0, 3.0];
        let mut dst = [9.0f32; 8];
        cp_async_zfill::<16>(&mut dst, 4, &src, 1, 2);
        assert_eq!(dst, [9.0, 9.0, 9.0, 9.0, 2.0, 3.0, 0.0, 0.0]);
        cp_async_zfill::<16>(&mut dst, 0, &src, 100, 0);
        assert_eq!(dst[..4], [0.0; 4]);
        cp_async::<8>(&mut dst, 2, &src, 0);
        assert_eq!(dst[..4], [0.0, 0.0, 1.0, 2.0]);
    }

    #[test]
    fn vector_accesses_move_n_elements_and_check_alignment() {
        let mut a = [0u32; 8];
        a.store_vec::<4>(4, [1, 2, 3, 4]);
        assert_eq!(a.load_vec::<2>(6), [3, 4]);
        let misaligned = std::panic::catch_unwind(|| [0f32; 8].load_vec::<4>(2));
        assert!(misaligned.is_err());
    }
}
