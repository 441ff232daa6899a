//! The host bytes a `&mut` slice or N-d view lends a launch, and the staging copy of a
//! stepped N-d view's span whose elements go back into the view after the launch (see
//! `crate::launch::nd`): below the launch's arguments, which carry them.

/// Calls `f` with the element offset (from element `(0, ..)`) of every index of an
/// array of `shape` and `strides`, in row-major order of the indices.
pub(crate) fn for_each_offset(shape: &[usize], strides: &[isize], mut f: impl FnMut(isize)) {
    if shape.contains(&0) {
        return;
    }
    let mut index = vec![0usize; shape.len()];
    loop {
        f(index
            .iter()
            .zip(strides)
            .map(|(&i, &s)| i as isize * s)
            .sum());
        let mut axis = shape.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
}

/// The host bytes of a `&mut` parameter: the caller's own (a slice, a gapless N-d
/// view's span), or a staging copy of an N-d view's span whose drop scatters the
/// view's elements back (a stepped view's span holds elements of other views, which
/// the launch must neither read nor write in the caller's memory).
pub(crate) enum HostBytesMut<'a> {
    Borrowed(&'a mut [u8]),
    /// Boxed: every launch moves its arguments, and the staging copy's fields made
    /// each `KernelArg` 136 bytes instead of 96 (issue 27).
    Staged(Box<Staged<'a>>),
}

/// A staging copy of an N-d view's span and where its elements go back to: the
/// launch calls [`Staged::write_back`] after the device's copy back (raw pointers, so
/// that a launch's arguments keep no borrow alive past their last use).
pub(crate) struct Staged<'a> {
    pub(crate) bytes: Vec<u8>,
    /// The view's element `(0, ..)`, in the caller's memory.
    pub(crate) origin_ptr: *mut u8,
    /// Where element `(0, ..)` sits in `bytes`, in elements.
    pub(crate) origin: usize,
    pub(crate) elem_size: usize,
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<isize>,
    pub(crate) _borrow: std::marker::PhantomData<&'a mut [u8]>,
}

impl Staged<'_> {
    /// Copies the view's elements (only those) from the staging bytes into the view.
    pub(crate) fn write_back(&self) {
        for_each_offset(&self.shape, &self.strides, |offset| {
            let at = (self.origin as isize + offset) as usize * self.elem_size;
            // SAFETY: `origin_ptr + offset` is an element of the `&mut` view the
            // argument borrows for `'a` (the offsets are the view's own); the staging
            // bytes hold the span, so `at` is in range.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.bytes.as_ptr().add(at),
                    self.origin_ptr.offset(offset * self.elem_size as isize),
                    self.elem_size,
                );
            }
        });
    }
}

impl std::ops::Deref for HostBytesMut<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            HostBytesMut::Borrowed(b) => b,
            HostBytesMut::Staged(s) => &s.bytes,
        }
    }
}

impl std::ops::DerefMut for HostBytesMut<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            HostBytesMut::Borrowed(b) => b,
            HostBytesMut::Staged(s) => &mut s.bytes,
        }
    }
}
