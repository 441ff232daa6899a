//! The launch memo (issue 27): what a thread's last launches of a kernel decided, so
//! that the same kernel launched again in the same shape, with arguments of the same
//! kinds and lengths, on the same GPU and context generation, skips the shape check,
//! the kernel lookup, the argument check and the proven copy's conditions. Each of
//! those is a pure function of what the memo compares (the kernel's source and cache,
//! the device's limits and loaded kernel, fixed per GPU and generation), so a hit
//! decides exactly what they would; whatever can change between two such launches
//! (the context's health, the stream's generation, where each array was used last,
//! the panic record) is still checked by the launch at every launch.
//!
//! Only the common case is remembered: device arrays of scalars and scalars by value
//! (no host slices, structs, tensor maps or simulator), a kernel that is not
//! cooperative, no shared-memory opt-in, and a proven copy that is settled (compiled,
//! or known not to exist: before that the choice of function counts launches).
//! Per thread, a few kernels at once, without a lock or a heap allocation: one
//! thread-local read and a comparison of a few words per argument on a hit. A hit
//! reads three cache lines (the kernels' line, then the kernel's entry, key and
//! decisions in two): after the driver's previous call each is likely a miss, so the
//! entry holds nothing the key already says (the launch's shape is rebuilt from it)
//! and keeps lengths and codes in the fewest bytes that hold them (issue 27).

use std::cell::RefCell;

use cudarc::driver::sys;
use kernel_device::ir::Type;

use crate::compile::loaded::LoadedKernel;
use crate::device::DeviceId;
use crate::launch::args::{ArgKind, KernelArg};
use crate::launch::config::{LaunchConfig, ValidLaunch};
use crate::launch::packed::{PackedLayout, PACKED_ARGS};

/// Arguments of a remembered launch, at most (kernels with more take the whole path):
/// what a packed parameter buffer holds, which a hit fills.
pub(crate) const MEMO_ARGS: usize = PACKED_ARGS;
/// Kernels a thread remembers at once (the oldest is replaced).
const MEMO_KERNELS: usize = 4;

/// What identifies a launch's decisions: everything the skipped checks read that can
/// differ between two launches of one kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemoKey {
    /// The kernel's source and cache (`&'static`: their addresses name them).
    source: usize,
    cache: usize,
    /// The GPU's context generation and ordinal (the loaded kernel's, the limits').
    generation: u64,
    ordinal: u32,
    /// Grid and block extents, then the dynamic shared bytes, each as written when
    /// it fits a `u32` (otherwise the launch is not remembered: the check reports it).
    shape: [u32; 7],
    /// Per argument: its kind and element ([`arg_code`]); unused places are 0.
    codes: [u8; MEMO_ARGS],
    /// Per argument: its length in elements (the proven copy's conditions read
    /// lengths), when it fits a `u32` (otherwise the launch is not remembered); 0 in
    /// unused places.
    lens: [u32; MEMO_ARGS],
}

/// What the skipped checks decided for a [`MemoKey`].
#[derive(Clone, Copy)]
pub(crate) struct MemoHit {
    pub(crate) kernel: &'static LoadedKernel,
    pub(crate) valid: ValidLaunch,
    /// Parameter slots of the arguments (the panic record's not counted).
    pub(crate) slots: usize,
    /// The function the launch passes to the driver (the proven copy where proven).
    pub(crate) function: sys::CUfunction,
    /// Where the arguments go in the packed parameter buffer: a function of the
    /// arguments' kinds, which the key compares.
    pub(crate) layout: PackedLayout,
}

/// What the table keeps of a [`MemoHit`]: all of it but the launch's shape, which is
/// the key's ([`MemoKey::valid_launch`]).
#[derive(Clone, Copy)]
pub(crate) struct Remembered {
    kernel: &'static LoadedKernel,
    function: sys::CUfunction,
    layout: PackedLayout,
    /// At most two per argument: a `u8` holds it.
    slots: u8,
}

/// Remembered launches, each key's decisions `H` ([`MemoHit`] for the launch; the
/// table is generic so that the CPU microbench and the tests run the same code
/// without a GPU): the sources' addresses apart (one line to scan), then the keys.
pub(crate) struct MemoTable<H: Copy> {
    sources: [usize; MEMO_KERNELS],
    entries: [Entry<H>; MEMO_KERNELS],
    /// The place the next new kernel takes.
    next: usize,
}

/// One remembered launch, key then decisions, on whole cache lines of its own: a hit
/// reads [`ENTRY_LINES`] lines, which the launch before prefetches (`super::bind`),
/// not a line more that a neighbour shares.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Entry<H: Copy>(Option<(MemoKey, H)>);

/// Cache lines of one entry of the launch's memo.
pub(crate) const ENTRY_LINES: usize = 2;

const _: () = assert!(std::mem::size_of::<Entry<Remembered>>() <= 64 * ENTRY_LINES);

impl<H: Copy> MemoTable<H> {
    pub(crate) const fn new() -> Self {
        MemoTable {
            sources: [0; MEMO_KERNELS],
            entries: [Entry(None); MEMO_KERNELS],
            next: 0,
        }
    }

    /// The decisions remembered for `key`, if any (the tests' reference for
    /// [`recall_launch`](Self::recall_launch)).
    #[cfg(test)]
    pub(crate) fn recall(&self, key: &MemoKey) -> Option<H> {
        let place = self.sources.iter().position(|&s| s == key.source)?;
        match &self.entries[place].0 {
            Some((known, hit)) if known == key => Some(*hit),
            _ => None,
        }
    }

    /// The decisions remembered for the launch of `kernel` (its source and cache) with
    /// `config` and `args` on `device`: what [`recall`](Self::recall) of its
    /// [`MemoKey`] answers, compared in place (no key is built: the launch's hit path).
    #[inline]
    pub(crate) fn recall_launch<S: ?Sized, C: ?Sized>(
        &self,
        kernel: (&'static S, &'static C),
        config: &LaunchConfig<'_>,
        args: &[KernelArg<'_>],
        device: DeviceId,
    ) -> Option<H> {
        self.recall_entry(kernel, config, args, device)
            .map(|(_, hit)| *hit)
    }

    /// [`recall_launch`](Self::recall_launch), with the key that matched.
    #[inline]
    fn recall_entry<S: ?Sized, C: ?Sized>(
        &self,
        kernel: (&'static S, &'static C),
        config: &LaunchConfig<'_>,
        args: &[KernelArg<'_>],
        device: DeviceId,
    ) -> Option<&(MemoKey, H)> {
        let source = address(kernel.0);
        let place = self.sources.iter().position(|&s| s == source)?;
        let entry = self.entries[place].0.as_ref()?;
        entry
            .0
            .matches(kernel, config, args, device)
            .then_some(entry)
    }

    /// Remembers `hit` for `key`, in place of its kernel's earlier launch, else of the
    /// kernel remembered longest ago.
    pub(crate) fn store(&mut self, key: MemoKey, hit: H) {
        let place = match self.sources.iter().position(|&s| s == key.source) {
            Some(place) => place,
            None => {
                let place = self.next;
                self.next = (place + 1) % MEMO_KERNELS;
                place
            }
        };
        self.sources[place] = key.source;
        self.entries[place] = Entry(Some((key, hit)));
    }
}

thread_local! {
    /// `const`, and nothing in it needs dropping: no destructor is registered and a
    /// launch's access is a plain thread-local read.
    static MEMO: RefCell<MemoTable<Remembered>> = const { RefCell::new(MemoTable::new()) };
}

/// The code of an argument the memo can stand for (a scalar, or a device array of
/// scalars on `device`), `None` for any other (the launch then takes the whole path).
/// Never 0, which marks an unused place; one byte: a scalar type's index is below 32
/// (`ScalarType::ALL`).
#[inline]
fn arg_code(arg: &KernelArg<'_>, device: DeviceId) -> Option<u8> {
    match &arg.kind {
        ArgKind::Scalar(scalar) => Some(0x40 | *scalar as u8),
        ArgKind::Device {
            elem: Type::Scalar(elem),
            device: on,
            mutable,
            allocation: Some(_),
            ..
        } if *on == device => Some(0x80 | (u8::from(*mutable) << 5) | *elem as u8),
        _ => None,
    }
}

const _: () = assert!(kernel_device::ir::ScalarType::ALL.len() <= 32);

/// The address of a `&'static` item, which names it.
#[inline]
fn address<T: ?Sized>(item: &'static T) -> usize {
    item as *const T as *const () as usize
}

/// `extent` as written, when it fits a `u32`.
#[inline]
fn extent(value: i128) -> Option<u32> {
    u32::try_from(value).ok()
}

impl MemoKey {
    /// The key of a launch of `source`/`cache` with `config` and `args` on the GPU
    /// `device` (`DeviceId::Cuda(ordinal, generation)`), or `None` when the launch is
    /// not one the memo remembers.
    #[inline]
    pub(crate) fn of<S: ?Sized, C: ?Sized>(
        (source, cache): (&'static S, &'static C),
        config: &LaunchConfig<'_>,
        args: &[KernelArg<'_>],
        device: DeviceId,
    ) -> Option<MemoKey> {
        let DeviceId::Cuda(ordinal, generation) = device else {
            return None;
        };
        if args.len() > MEMO_ARGS {
            return None;
        }
        let [gx, gy, gz] = config.grid.extents();
        let [bx, by, bz] = config.block.extents();
        let shape = [
            extent(gx)?,
            extent(gy)?,
            extent(gz)?,
            extent(bx)?,
            extent(by)?,
            extent(bz)?,
            u32::try_from(config.shared_bytes).ok()?,
        ];
        let mut codes = [0u8; MEMO_ARGS];
        let mut lens = [0u32; MEMO_ARGS];
        for (i, arg) in args.iter().enumerate() {
            codes[i] = arg_code(arg, device)?;
            lens[i] = u32::try_from(arg.len).ok()?;
        }
        Some(MemoKey {
            source: address(source),
            cache: address(cache),
            generation,
            ordinal: u32::try_from(ordinal).ok()?,
            shape,
            codes,
            lens,
        })
    }

    /// The checked shape of every launch this key stands for: its extents and dynamic
    /// shared bytes as written, no shared-memory opt-in and no clusters (the memo keeps
    /// no launch with either: [`remember`]).
    #[inline(always)]
    fn valid_launch(&self) -> ValidLaunch {
        let [gx, gy, gz, bx, by, bz, shared_bytes] = self.shape;
        ValidLaunch {
            grid: [gx, gy, gz],
            block: [bx, by, bz],
            shared_bytes,
            needs_shared_opt_in: false,
            cluster: [1, 1, 1],
        }
    }
}

impl MemoKey {
    /// Whether [`MemoKey::of`] the launch would be this key, without building it.
    #[inline]
    fn matches<S: ?Sized, C: ?Sized>(
        &self,
        (source, cache): (&'static S, &'static C),
        config: &LaunchConfig<'_>,
        args: &[KernelArg<'_>],
        device: DeviceId,
    ) -> bool {
        let DeviceId::Cuda(ordinal, generation) = device else {
            return false;
        };
        let [gx, gy, gz] = config.grid.extents();
        let [bx, by, bz] = config.block.extents();
        let shape = self.shape.map(i128::from);
        let same = (self.source == address(source))
            & (self.cache == address(cache))
            & (self.ordinal as usize == ordinal)
            & (self.generation == generation)
            & ([gx, gy, gz, bx, by, bz] == [shape[0], shape[1], shape[2], shape[3], shape[4], shape[5]])
            & (config.shared_bytes as u128 == shape[6] as u128)
            // Unused places are 0 and no argument's code is.
            & (args.len() <= MEMO_ARGS)
            && (args.len() == MEMO_ARGS || self.codes[args.len()] == 0);
        same && args.iter().enumerate().all(|(i, arg)| {
            (arg_code(arg, device) == Some(self.codes[i])) & (arg.len == i64::from(self.lens[i]))
        })
    }
}

/// The decisions remembered on this thread for the launch of `kernel` (its source and
/// cache) with `config` and `args` on `device`, if any.
#[inline]
pub(crate) fn recall<S: ?Sized, C: ?Sized>(
    kernel: (&'static S, &'static C),
    config: &LaunchConfig<'_>,
    args: &[KernelArg<'_>],
    device: DeviceId,
) -> Option<MemoHit> {
    MEMO.with(|memo| {
        let memo = memo.borrow();
        let (key, kept) = memo.recall_entry(kernel, config, args, device)?;
        Some(MemoHit {
            kernel: kept.kernel,
            valid: key.valid_launch(),
            slots: usize::from(kept.slots),
            function: kept.function,
            layout: kept.layout,
        })
    })
}

/// The address of what this thread remembers for `kernel` (its source and cache),
/// for the launch to prefetch for its next launch of it (`super::bind`).
#[inline]
pub(crate) fn entry_address<S: ?Sized, C: ?Sized>(
    kernel: (&'static S, &'static C),
) -> Option<*const u8> {
    let source = address(kernel.0);
    MEMO.with(|memo| {
        let table = memo.try_borrow().ok()?;
        let place = table.sources.iter().position(|&s| s == source)?;
        Some(&table.entries[place] as *const _ as *const u8)
    })
}

/// Remembers `hit` for `key` on this thread, when the launch is one whose decisions
/// stay true: not cooperative, no shared-memory opt-in, the proven copy settled; and
/// when the key's shape is the checked one (the shape a hit returns is rebuilt from
/// the key, [`MemoKey::valid_launch`]).
#[inline(never)]
pub(crate) fn remember(key: MemoKey, hit: MemoHit) {
    let kernel = hit.kernel;
    if kernel.cooperative || hit.valid.needs_shared_opt_in || !kernel.function_settled() {
        return;
    }
    let Ok(slots) = u8::try_from(hit.slots) else {
        return;
    };
    if key.valid_launch() != hit.valid {
        return;
    }
    let kept = Remembered {
        kernel,
        function: hit.function,
        layout: hit.layout,
        slots,
    };
    MEMO.with(|memo| memo.borrow_mut().store(key, kept))
}

#[cfg(test)]
mod tests;
