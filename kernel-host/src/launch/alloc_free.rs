//! Issue 27: a launch on device arrays allocates nothing on the host. The launch path's
//! parts that run without a GPU (context guard, panic record, shape and argument
//! checks, cross-stream ordering of the arrays, parameter slots, the stage timer) are
//! run here on the simulator, step for step as `launch` runs them, under a counting
//! global allocator (this test binary's; it counts the calling thread's allocations
//! only, so tests running beside it do not disturb the count).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use kernel_device::ir::{ScalarType, Type};

use crate::device::Device;
use crate::launch::args::{check_args, fill_slots, KernelArg};
use crate::launch::config::LaunchConfig;
use crate::launch::profile::{LaunchTimer, Stage};
use crate::memory::array::DeviceArray;

thread_local! {
    /// Allocations (and reallocations) made by this thread.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct CountingAllocator;

// SAFETY: every call is passed to `System` unchanged; the count is a thread-local
// `Cell` with a constant initialiser and no destructor, which allocates nothing.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

fn count() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator;

/// The host side of `launch` for `vecadd(a, b, c, n)` on device arrays, as it runs
/// before the driver call, on `stream` (`None`: the default stream).
fn launch_steps(
    device: &Device,
    stream: Option<&crate::Stream>,
    arrays: (&DeviceArray<f32>, &DeviceArray<f32>, &DeviceArray<f32>),
    params: &[Type],
) -> u64 {
    let mut timer = LaunchTimer::start();
    let _guard = device.bind().unwrap();
    timer.mark(Stage::Bind);
    let faults = match stream {
        Some(s) => s.own_faults().unwrap(),
        None => device.thread_faults_borrowed().unwrap(),
    };
    faults.note_launcher();
    let record = faults.record_ptr();
    let mut config = LaunchConfig::new(4u32, 256u32);
    config.stream = stream;
    let valid = config.validate("vecadd", device.limits()).unwrap();
    let valid = valid
        .with_static_shared("vecadd", 0, device.limits())
        .unwrap();
    match stream {
        Some(s) => s.ensure_current().unwrap(),
        None => device.ensure_alive().unwrap(),
    }
    let (a, b, c) = arrays;
    let mut args = [
        KernelArg::device(a, false),
        KernelArg::device(b, false),
        KernelArg::device(c, true),
        KernelArg::scalar(1024u32),
    ];
    let summary = check_args("vecadd", params, &args, device.id()).unwrap();
    let stream_ref = stream.map_or(&super::context::NULL_STREAM, |s| s.handle());
    let tracked = super::ordering::order_array_uses(device, stream_ref, &args).unwrap();
    let mut slots = [std::ptr::null_mut(); 8];
    fill_slots(&mut args, &mut slots[..summary.slots]);
    timer.mark(Stage::Marshal);
    timer.finish();
    std::hint::black_box((slots, valid, record, tracked));
    summary.slots as u64
}

#[test]
fn a_launch_on_device_arrays_allocates_nothing() {
    let device = Device::simulator().unwrap();
    let a = DeviceArray::from_slice_on(&device, &[1.0f32; 1024]).unwrap();
    let b = DeviceArray::from_slice_on(&device, &[2.0f32; 1024]).unwrap();
    let c = DeviceArray::<f32>::zeros_on(&device, 1024).unwrap();
    let stream = device.new_stream().unwrap();
    let slice = |mutable| Type::Slice {
        elem: ScalarType::F32,
        mutable,
    };
    let params = [
        slice(false),
        slice(false),
        slice(true),
        Type::Scalar(ScalarType::U32),
    ];
    // The thread's first default-stream launch makes its record (once per thread).
    let _ = device.thread_faults().unwrap();
    for stream in [Some(&stream), None] {
        let warm = launch_steps(&device, stream, (&a, &b, &c), &params);
        assert_eq!(warm, 7, "three slices of two slots and one scalar");
        let before = allocations();
        for _ in 0..100 {
            launch_steps(&device, stream, (&a, &b, &c), &params);
        }
        let made = allocations() - before;
        assert_eq!(
            made,
            0,
            "{made} allocations in 100 launches on {}",
            if stream.is_some() {
                "a stream"
            } else {
                "the default stream"
            }
        );
    }
    // The counter sees allocations at all (the test could not pass by counting none).
    let before = allocations();
    std::hint::black_box(vec![0u8; 16]);
    assert_eq!(allocations() - before, 1);
}
