//! A CPU microbenchmark of the launch path's own work (issue 27), runnable without a
//! GPU: the stages of a launch through the driver that need no driver call (the
//! reset guard, the panic record, the shape and argument checks, the stream ordering
//! of arrays already on the launch's stream, the parameter slots), on the very
//! functions `launch` calls, over three device arrays on one stream. What it cannot
//! run here: the kernel lookup's loaded module and the driver call (and
//! `cuCtxGetCurrent`, which a launch calls only when the thread's last bind was not of
//! the launch's context).
//!
//! Two figures per stage. *Warm*: back to back, the path's data in the nearest caches.
//! *Cold*: each launch after a read of [`EVICT_BYTES`] of other memory, as the driver's
//! ~4 µs between two of our launches pushes the path's lines out of the first-level
//! cache (the GPU host's stage profile costs 2-4 times the warm figures); only the
//! launch is timed (two clock reads, which the empty baseline pays too). A change that removes a
//! cache line or a chain of dependent loads shows in the cold figure even where the
//! warm one hardly moves. `vecadd_launch --cpu-host-path` prints the table.

use std::cell::RefCell;
use std::hint::black_box;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys;
use kernel_device::ir::{ScalarType, Type};
use kernel_device::source::FnSource;

use crate::device::stream::{StreamHandle, StreamOwner, StreamRef};
use crate::device::{Device, DeviceId};
use crate::executor::health::Health;
use crate::executor::panic::StreamFaults;
use crate::launch::args::{check_args, fill_slots, ArgKind, KernelArg};
use crate::launch::config::LaunchConfig;
use crate::launch::memo::{MemoKey, MemoTable};
use crate::launch::ordering::{arrays_quiet_on, order_array_uses};
use crate::launch::packed::{PackedLayout, PackedParams};
use crate::memory::allocation::Allocation;

/// One row: nanoseconds per launch, warm and after the first-level caches were swept.
#[derive(Clone, Debug, PartialEq)]
pub struct HostPathRow {
    pub stage: &'static str,
    pub warm_ns: f64,
    pub cold_ns: f64,
}

/// What the cold figures read between two launches: more than a first-level data cache
/// (48 KiB on the H200's host), less than a second-level one, as a driver call's own
/// data would.
pub const EVICT_BYTES: usize = 128 << 10;

/// Reads one byte of every cache line of `memory` (the cold figures' sweep).
#[inline(never)]
fn sweep(memory: &[u8]) -> u8 {
    memory
        .iter()
        .step_by(64)
        .fold(0, |sum, b| sum ^ black_box(*b))
}

/// The fixture: a simulated device standing in for the GPU's limits and arrays, three
/// arrays last used on one (made-up, never driven) stream, a context's health.
struct Fixture {
    device: Device,
    health: Health,
    faults: Arc<StreamFaults>,
    stream: StreamRef,
    arrays: Vec<Arc<Allocation>>,
    params: Vec<Type>,
}

impl Fixture {
    fn new() -> crate::Result<Fixture> {
        let device = Device::simulator()?;
        // A stream handle the driver never sees (its owner destroys nothing).
        let stream: StreamRef = Some(StreamHandle::new(
            0xA0 as sys::CUstream,
            &device,
            StreamOwner::Foreign,
        ));
        // Borrowed memory at made-up addresses, last used on `stream`: no driver call
        // makes or frees it, and every use stays on the fast path.
        let arrays = (1..=3u64)
            .map(|i| Allocation::borrowed(&device, i << 20, stream.clone(), None))
            .collect();
        let slice = |mutable| Type::Slice {
            elem: ScalarType::F32,
            mutable,
        };
        Ok(Fixture {
            faults: device.new_faults()?,
            health: Health::default(),
            params: vec![slice(false), slice(false), slice(true)],
            device,
            stream,
            arrays,
        })
    }

    /// The launch's arguments as the generated launcher builds them (`vecadd(a, b, &mut c)`).
    fn args(&self) -> [KernelArg<'_>; 3] {
        let arg = |i: usize, mutable| KernelArg {
            kind: ArgKind::Device {
                elem: Type::Scalar(ScalarType::F32),
                device: self.arrays[i].device_id(),
                mutable,
                sim_buffer: None,
                sim_offset: 0,
                allocation: Some(&self.arrays[i]),
            },
            value: self.arrays[i].ptr,
            len: 1024,
        };
        [arg(0, false), arg(1, false), arg(2, true)]
    }
}

/// What the launch memo remembers, in the bench: a stand-in of `memo::Remembered`'s
/// size (the loaded kernel, the function, the packed layout, the slot count), since no
/// kernel is loaded without a GPU; the table's code is the launch's.
type StandIn = (usize, usize, PackedLayout, u8);

thread_local! {
    static BENCH_MEMO: RefCell<MemoTable<StandIn>> = const { RefCell::new(MemoTable::new()) };
}

impl Fixture {
    /// The memo's work on a hit: the thread's table read, the launch compared in
    /// place (the first call, a miss, builds the key and stores the decisions).
    fn recall(&self, config: &LaunchConfig<'_>, args: &[KernelArg<'_>], id: DeviceId) -> bool {
        static SOURCE: u8 = 0;
        static CACHE: u8 = 0;
        let kernel = (&SOURCE, &CACHE);
        BENCH_MEMO.with(|memo| {
            if let Some(hit) = memo.borrow().recall_launch(kernel, config, args, id) {
                black_box(hit);
                return true;
            }
            let key = MemoKey::of(kernel, config, args, id);
            let valid = config.validate("bench", self.device.limits()).ok();
            if let (Some(key), Some(_)) = (key, valid) {
                let layout = PackedLayout::of(args).unwrap_or_default();
                memo.borrow_mut().store(key, (1, 2, layout, 6));
            }
            false
        })
    }
}

/// Times the launch path's stages over `launches` launches (least of `rounds`), less
/// the loop's own time. `source` is the kernel the shape is checked for (its
/// `launch_bounds`).
pub fn host_path_bench(
    source: &'static FnSource,
    launches: usize,
    rounds: usize,
) -> crate::Result<Vec<HostPathRow>> {
    let fixture = Fixture::new()?;
    let fixture = &fixture;
    let limits = fixture.device.limits();
    let config = LaunchConfig::new(4u32, 256u32);
    // The arrays' device as a GPU's (ordinal 0, generation 0), as the launch sees it.
    let id = fixture.arrays[0].device_id();
    let name: &'static String = Box::leak(Box::new(source.name.to_string()));
    // What the memo remembers for the launch (`memo::remember`).
    let layout = PackedLayout::of(&fixture.args()).expect("scalars and device arrays");
    type Stage<'f> = (&'static str, Box<dyn Fn() + 'f>);
    let stages: Vec<Stage<'_>> = vec![
        (
            "arguments built and dropped",
            Box::new(|| drop(black_box(fixture.args()))),
        ),
        (
            "bind: reset guard, context bound last trusted",
            Box::new(|| {
                let guard = fixture.health.enter();
                black_box(crate::executor::bound_here(black_box(
                    0xC0 as sys::CUcontext,
                )));
                drop(black_box(guard));
            }),
        ),
        (
            "panic_record: launcher noted, record read",
            Box::new(|| {
                fixture.faults.note_launcher();
                black_box(fixture.faults.record_ptr());
            }),
        ),
        (
            "memo: last decisions recalled (launch compared)",
            Box::new(move || {
                let args = fixture.args();
                black_box(fixture.recall(&config, &args, id));
            }),
        ),
        (
            "validate (memo miss): shape, health",
            Box::new(move || {
                let valid = config.validate_for(source, limits);
                black_box(fixture.health.is_lost());
                black_box(fixture.health.generation());
                let _ = black_box(valid);
            }),
        ),
        (
            "argument_check (memo miss)",
            Box::new(move || {
                let args = fixture.args();
                let _ = black_box(check_args(name, &fixture.params, &args, id));
            }),
        ),
        (
            "stream_ordering: same stream",
            Box::new(|| {
                let args = fixture.args();
                let _ = black_box(order_array_uses(&fixture.device, &fixture.stream, &args));
                if let Some(handle) = &fixture.stream {
                    let _ = handle
                        .pending_reads
                        .before_launch(&fixture.device, handle.raw, |_| true);
                }
                fixture.health.note_launch(name);
            }),
        ),
        (
            "marshal: parameter slots",
            Box::new(|| {
                let mut args = fixture.args();
                let mut slots = [std::ptr::null_mut(); 7];
                fill_slots(&mut args, &mut slots[..6]);
                black_box(&mut slots);
            }),
        ),
        (
            "all of the above, in launch order (memo hit)",
            Box::new(move || {
                let mut args = fixture.args();
                let guard = fixture.health.enter();
                black_box(crate::executor::bound_here(black_box(
                    0xC0 as sys::CUcontext,
                )));
                fixture.faults.note_launcher();
                let record = fixture.faults.record_ptr();
                let hit = fixture.recall(&config, &args, id);
                black_box(fixture.health.is_lost());
                black_box(fixture.health.generation());
                let _ = order_array_uses(&fixture.device, &fixture.stream, &args);
                if let Some(handle) = &fixture.stream {
                    let _ = handle
                        .pending_reads
                        .before_launch(&fixture.device, handle.raw, |_| true);
                }
                fixture.health.note_launch(name);
                let mut slots = [std::ptr::null_mut(); 7];
                fill_slots(&mut args, &mut slots[..6]);
                black_box((&mut slots, record, hit));
                drop(guard);
            }),
        ),
        (
            "marshal, fast path: packed parameter buffer",
            Box::new(move || {
                let args = fixture.args();
                let mut packed = PackedParams::new();
                packed.fill_at(&layout, &args, black_box(0x1000));
                black_box(&mut packed);
            }),
        ),
        (
            "fast path (launch::fast): all of it, memo hit",
            Box::new(move || {
                let args = fixture.args();
                let guard = fixture.health.enter();
                black_box(crate::executor::bound_here(black_box(
                    0xC0 as sys::CUcontext,
                )));
                if let Some(handle) = &fixture.stream {
                    let capturing = handle.capturing.load(Ordering::Relaxed);
                    black_box(capturing | handle.pending_reads.any());
                }
                let hit = fixture.recall(&config, &args, id);
                black_box(arrays_quiet_on(&fixture.stream, &args));
                black_box(fixture.health.is_lost());
                black_box(fixture.health.generation());
                let mut packed = PackedParams::new();
                packed.fill_at(&layout, &args, fixture.faults.record_ptr());
                fixture.faults.note_launcher();
                fixture.health.note_launch(name);
                black_box((packed, hit));
                drop(guard);
            }),
        ),
        (
            "the same, memo missed: the whole checks",
            Box::new(move || {
                let mut args = fixture.args();
                let guard = fixture.health.enter();
                fixture.faults.note_launcher();
                let record = fixture.faults.record_ptr();
                let valid = config.validate_for(source, limits);
                black_box(fixture.health.is_lost());
                let _ = black_box(check_args(name, &fixture.params, &args, id));
                let _ = black_box(valid);
                let _ = order_array_uses(&fixture.device, &fixture.stream, &args);
                if let Some(handle) = &fixture.stream {
                    let _ = handle
                        .pending_reads
                        .before_launch(&fixture.device, handle.raw, |_| true);
                }
                fixture.health.note_launch(name);
                let mut slots = [std::ptr::null_mut(); 7];
                fill_slots(&mut args, &mut slots[..6]);
                black_box((&mut slots, record));
                drop(guard);
            }),
        ),
    ];
    let evict: Vec<u8> = (0..EVICT_BYTES).map(|i| i as u8).collect();
    // Nanoseconds per launch of `work` (after a sweep of `evict` when `cold`), the
    // least over `rounds`: on a shared machine other work only ever adds time.
    let time = |work: &dyn Fn(), cold: bool, launches: usize| -> f64 {
        let mut least = f64::INFINITY;
        for _ in 0..rounds {
            let elapsed = if cold {
                // Only the launch is timed, between two clock reads (the baseline's
                // `nothing` pays the same reads): the sweep's own time, which varies
                // more than the path costs, stays out.
                let mut total = std::time::Duration::ZERO;
                for _ in 0..launches {
                    black_box(sweep(&evict));
                    let start = Instant::now();
                    work();
                    total += start.elapsed();
                }
                total
            } else {
                let start = Instant::now();
                for _ in 0..launches {
                    work();
                }
                start.elapsed()
            };
            least = least.min(elapsed.as_nanos() as f64 / launches as f64);
        }
        least
    };
    let nothing: &dyn Fn() = &|| {};
    // The sweep costs ~20 times the path: fewer launches per cold round.
    let cold_launches = (launches / 4).max(1);
    let mut rows = Vec::new();
    for (stage, work) in &stages {
        // Interleaved with the baseline, so drift weighs on both alike.
        let warm_ns = time(&**work, false, launches) - time(nothing, false, launches);
        let cold_ns = time(&**work, true, cold_launches) - time(nothing, true, cold_launches);
        rows.push(HostPathRow {
            stage,
            warm_ns,
            cold_ns,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture's arguments pass the launch's checks and stay on the fast path, so
    /// the bench times the path a launch on one stream takes (not an error's).
    #[test]
    fn the_fixture_takes_the_fast_path() {
        let fixture = Fixture::new().unwrap();
        let args = fixture.args();
        let summary = check_args("k", &fixture.params, &args, fixture.arrays[0].device_id());
        let summary = summary.unwrap();
        assert_eq!(summary.slots, 6);
        assert!(!summary.host_slices);
        let tracked = super::order_array_uses(&fixture.device, &fixture.stream, &args).unwrap();
        assert_eq!(tracked, 0);
        // The memo stage times a hit: the first recall stores, every later one hits.
        let config = LaunchConfig::new(4u32, 256u32);
        let id = fixture.arrays[0].device_id();
        fixture.recall(&config, &args, id);
        assert!(fixture.recall(&config, &args, id));
    }
}
