//! Ordering a launch's device arrays across streams (see `crate::memory::allocation`):
//! before the launch, each array's earlier uses on other streams it conflicts with;
//! after it, the reads its stream leaves pending (`crate::device::marks`). The common
//! case, every array already where it was used last, is one load and compare per array.

use std::sync::Arc;

use crate::device::stream::StreamRef;
use crate::device::Device;
use crate::error::Result;
use crate::launch::args::KernelArg;
use crate::memory::allocation::{Allocation, OrderedAfter};

/// The GPU memory of the launch's device-array arguments (and the arrays under its
/// tensor maps: `ArgKind::ordered_memory`), in order.
pub(crate) fn device_allocations<'a>(
    args: &'a [KernelArg<'_>],
) -> impl Iterator<Item = &'a Arc<Allocation>> {
    args.iter()
        .filter_map(|arg| arg.kind.ordered_memory().map(|(memory, _)| memory))
}

/// Whether one of the launch's device arrays is `memory`.
pub(crate) fn uses_allocation(args: &[KernelArg<'_>], memory: *const ()) -> bool {
    device_allocations(args).any(|m| Arc::as_ptr(m) as *const () == memory)
}

/// Orders the launch on `stream` after the uses of its device arrays on other streams
/// (see `crate::memory::allocation`); no driver call when every array was last used on `stream`.
/// Bit `i` of the result is set when the `i`th device array (of the first 64) is a
/// read that its stream's later launches give an event of its own (`crate::device::marks`).
/// The common case, every array already on `stream`, is one load and compare per array
/// and one branch (`Allocation::is_quiet_on`); the rest is [`order_array_uses_slow`]'s.
#[inline]
pub(crate) fn order_array_uses(
    device: &Device,
    stream: &StreamRef,
    args: &[KernelArg<'_>],
) -> Result<u64> {
    if arrays_quiet_on(stream, args) {
        return Ok(0);
    }
    order_array_uses_slow(device, stream, args)
}

/// Whether every device array of the launch was last used on `stream` in a way that
/// needs no ordering ([`order_array_uses`]' common case: then it calls no driver).
#[inline]
pub(crate) fn arrays_quiet_on(stream: &StreamRef, args: &[KernelArg<'_>]) -> bool {
    let here = crate::device::stream::raw_of(stream);
    args.iter().all(|arg| match arg.kind.ordered_memory() {
        Some((memory, write)) => memory.is_quiet_on(here, write),
        None => true,
    })
}

/// [`order_array_uses`] past its common case: events recorded and waited for.
#[inline(never)]
pub(crate) fn order_array_uses_slow(
    device: &Device,
    stream: &StreamRef,
    args: &[KernelArg<'_>],
) -> Result<u64> {
    let mut tracked = 0u64;
    // One event and wait per earlier stream, however many arrays were last used there.
    let mut ordered = OrderedAfter::default();
    let uses = args.iter().filter_map(|arg| arg.kind.ordered_memory());
    for (index, (memory, write)) in uses.enumerate() {
        if device.watch(memory.use_on_tracked(stream, write, &mut ordered))? && index < 64 {
            tracked |= 1 << index;
        }
    }
    Ok(tracked)
}

/// After the launch: the reads [`order_array_uses`] tracked (bit `i`: the `i`th device
/// array) left pending on the launch's stream (`crate::device::marks`).
#[inline]
pub(crate) fn leave_reads_pending(stream: &StreamRef, args: &[KernelArg<'_>], tracked: u64) {
    if tracked == 0 {
        return;
    }
    if let Some(handle) = stream {
        let read = device_allocations(args)
            .enumerate()
            .filter(|(i, _)| *i < 64 && tracked & (1 << i) != 0)
            .map(|(_, memory)| memory);
        handle.pending_reads.after_launch(read);
    }
}
