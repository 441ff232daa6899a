//! DLPack interop on a GPU: a `DeviceArray` exported as a DLPack tensor and imported
//! back shares its memory (same device pointer, no copy), each tensor's deleter runs
//! exactly once, and mismatched tensors are refused naming what is wrong. On the CPU
//! simulator (a machine without a GPU) each test says `skipped: ...` and passes; the
//! simulator's own `Err` is a unit test of `kernel-host/src/interop/dlpack.rs`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use kernel_host::__private::{launch, FnSource, KernelArg, KernelCache, SliceArgMut, SourceKind};
use kernel_host::dlpark::ffi::{DLDataType, DLDevice};
use kernel_host::dlpark::metadata::Dynamic;
use kernel_host::dlpark::Managed;
use kernel_host::{Device, DeviceArray, DlpackTensor, Error, LaunchConfig};

macro_rules! skip {
    ($($reason:tt)*) => {{
        use std::io::Write as _;
        let test = std::thread::current().name().unwrap_or("test").to_string();
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", format_args!($($reason)*));
    }};
}

/// One test at a time on the device (a device-wide synchronisation reports any
/// kernel's panic).
static GPU: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn gpu_or_skip() -> Option<(Device, std::sync::MutexGuard<'static, ()>)> {
    let guard = GPU.lock().unwrap_or_else(|p| p.into_inner());
    match Device::default() {
        Ok(device) if !device.is_simulator() => Some((device, guard)),
        Ok(_) => {
            skip!("on the CPU simulator: DLPack tensors describe GPU memory");
            None
        }
        Err(e) => {
            skip!("no CUDA driver/GPU ({e})");
            None
        }
    }
}

const SCALE_LINE: u32 = line!() + 2;
static SCALE: FnSource = FnSource {
    name: "scale",
    kind: SourceKind::Kernel,
    text: "fn scale(x: &mut [f32], a: f32) {\n    let i = grid(1);\n    if i < x.len() {\n        x[i] = x[i] * a;\n    }\n}",
    file: file!(),
    line: SCALE_LINE,
    options: kernel_device::ir::FunctionOptions::DEFAULT,
    deps: &[],
    consts: &[],
    structs: &[],
    instance: &[],
};
static SCALE_CACHE: KernelCache = KernelCache::new();

fn scale<'a>(
    config: LaunchConfig<'_>,
    x: impl SliceArgMut<'a, f32>,
    a: f32,
) -> kernel_host::Result<()> {
    let mut args = [x.into_kernel_arg(), KernelArg::scalar(a)];
    launch(&SCALE, &SCALE_CACHE, config, &mut args)
}

/// Counts its drops: the context of a test tensor, to see its deleter run.
struct Counted<T>(#[allow(dead_code)] T, Arc<AtomicUsize>);
impl<T> Drop for Counted<T> {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::SeqCst);
    }
}

/// A DLPack tensor over `address` whose context holds `keep` and counts into `drops`.
fn tensor_over<K: Send + 'static>(
    keep: K,
    drops: &Arc<AtomicUsize>,
    address: u64,
    device: DLDevice,
    dtype: DLDataType,
    shape: &[i64],
    strides: &[i64],
) -> DlpackTensor {
    let mut initialized = Dynamic::new(shape.to_vec(), strides.to_vec())
        .initialize(Box::new(Counted(keep, Arc::clone(drops))))
        .unwrap();
    initialized
        .set_data(address as *mut std::ffi::c_void)
        .set_device(device)
        .set_dtype(dtype);
    // SAFETY: `address` is memory `keep` keeps alive (or, for the refused tensors, is
    // never read: the import refuses them first).
    unsafe { initialized.finish() }
}

/// `n` whole numbers below 1000 from fastrand's generator seeded with `seed`.
fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n).map(|_| rng.u32(..1000) as f32).collect()
}

/// Export then import: the same device pointer both ways (no copy), through the C ABI
/// (a raw `DLManagedTensorVersioned*`), kernels before and after on a created stream
/// with no synchronisation in between, results right; the exported array lives until
/// the imported one drops, and a wrapping tensor's deleter runs exactly once.
#[test]
fn dlpack_round_trip_shares_the_memory_and_runs_the_deleter_once() {
    let Some((device, _gpu)) = gpu_or_skip() else {
        return;
    };
    let n: usize = 1 << 20;
    let data = random_f32(n, 0x0d1_9ac4 ^ std::process::id() as u64);
    let stream = device.new_stream().unwrap();
    let config = || LaunchConfig::new(n.div_ceil(256), 256).stream(&stream);

    let mut a = DeviceArray::from_slice_on(&device, &data).unwrap();
    match scale(config(), &mut a, 2.0) {
        Err(e @ Error::Nvvm { .. }) if e.to_string().contains("not found") => {
            skip!("libnvvm not available ({e})");
            return;
        }
        other => other.unwrap(),
    }
    let address = a.device_ptr();
    let exported = a.into_dlpack(&stream).unwrap();
    {
        let view = exported.validate_export().unwrap();
        assert_eq!(view.shape(), &[n as i64]);
        assert_eq!(view.strides(), Some(&[1i64][..]));
        assert_eq!(
            view.data_ptr() as u64,
            address,
            "the export copied the data"
        );
        assert_eq!(view.byte_offset(), 0);
        assert!(view.dtype().matches(DLDataType::F32));
        assert_eq!(view.device(), DLDevice::cuda(device.ordinal() as i32));
    }
    // Through the C ABI, as another library would receive it.
    let raw = exported.into_raw();
    // SAFETY: made by `into_dlpack` just above, owned by nobody else.
    let exported = unsafe { Managed::from_raw(raw) }.unwrap();

    // Wrapped in a counting tensor (as a consumer re-exporting it would).
    let drops = Arc::new(AtomicUsize::new(0));
    let wrapped = tensor_over(
        exported,
        &drops,
        address,
        DLDevice::cuda(device.ordinal() as i32),
        DLDataType::F32,
        &[n as i64],
        &[1],
    );
    let mut b = DeviceArray::<f32>::from_dlpack(wrapped, &stream).unwrap();
    assert_eq!(b.device_ptr(), address, "the import copied the data");
    assert_eq!(b.len(), n);
    scale(config(), &mut b, 3.0).unwrap();
    let got = b.to_host().unwrap();
    for (i, (&g, &x)) in got.iter().zip(&data).enumerate() {
        assert_eq!(g, 6.0 * x, "element {i} after kernels on both sides");
    }
    assert_eq!(drops.load(Ordering::SeqCst), 0, "deleter ran while in use");
    drop(b);
    assert_eq!(drops.load(Ordering::SeqCst), 1, "deleter did not run once");
    stream.synchronize().unwrap();

    // A tensor with a byte offset and a 2-D row-major shape: the array starts there.
    let base = DeviceArray::from_slice_on(&device, &data).unwrap();
    let base_address = base.device_ptr();
    let drops = Arc::new(AtomicUsize::new(0));
    let mut initialized = Dynamic::new(vec![4i64, 256], vec![256i64, 1])
        .initialize(Box::new(Counted(base, Arc::clone(&drops))))
        .unwrap();
    initialized
        .set_data(base_address as *mut std::ffi::c_void)
        .set_device(DLDevice::cuda(device.ordinal() as i32))
        .set_dtype(DLDataType::F32)
        .set_byte_offset(4 * 1000);
    // SAFETY: `base` (kept by the tensor) holds `n` f32s; 1000 + 1024 < n.
    let offset = unsafe { initialized.finish() };
    let c = DeviceArray::<f32>::from_dlpack(offset, &stream).unwrap();
    assert_eq!(c.device_ptr(), base_address + 4000);
    assert_eq!(c.to_host().unwrap(), data[1000..2024]);
    drop(c);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

/// Tensors that do not fit the array are refused naming what is wrong, and each
/// refused tensor's deleter runs exactly once.
#[test]
fn mismatched_dlpack_tensors_are_refused_naming_what_is_wrong() {
    let Some((device, _gpu)) = gpu_or_skip() else {
        return;
    };
    let stream = device.new_stream().unwrap();
    let n = 4096usize;
    let owner = DeviceArray::<f32>::zeros_on(&device, n).unwrap();
    let address = owner.device_ptr();
    let ordinal = device.ordinal() as i32;
    let drops = Arc::new(AtomicUsize::new(0));
    let cases = [
        (
            DLDevice::CPU,
            DLDataType::F32,
            vec![n as i64],
            vec![1i64],
            "the tensor is in the CPU, not on a CUDA GPU".to_string(),
        ),
        (
            DLDevice::cuda(ordinal + 1),
            DLDataType::F32,
            vec![n as i64],
            vec![1],
            format!(
                "the tensor is on CUDA device {} but the stream is on CUDA device {ordinal}",
                ordinal + 1
            ),
        ),
        (
            DLDevice::cuda(ordinal),
            DLDataType::F64,
            vec![n as i64 / 2],
            vec![1],
            "the tensor's elements are float64 but the array's are float32".to_string(),
        ),
        (
            DLDevice::cuda(ordinal),
            DLDataType::F32,
            vec![64, 64],
            vec![1, 64],
            "strides [1, 64] (in elements) for shape [64, 64] are not one contiguous".into(),
        ),
        (
            DLDevice::cuda(ordinal),
            DLDataType::F32,
            vec![1i64 << 40],
            vec![1],
            "run past the end of its allocation".to_string(),
        ),
    ];
    for (i, (dev, dtype, shape, strides, expected)) in cases.into_iter().enumerate() {
        let t = tensor_over((), &drops, address, dev, dtype, &shape, &strides);
        let err = DeviceArray::<f32>::from_dlpack(t, &stream).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("DeviceArray::from_dlpack: ") && text.contains(&expected),
            "case {i}: expected {expected:?} in {text:?}"
        );
        assert_eq!(
            drops.load(Ordering::SeqCst),
            i + 1,
            "case {i}: deleter runs"
        );
    }
    // A host address is no CUDA memory, whatever the descriptor says.
    let host = vec![0f32; 16];
    let t = tensor_over(
        (),
        &drops,
        host.as_ptr() as u64,
        DLDevice::cuda(ordinal),
        DLDataType::F32,
        &[16],
        &[1],
    );
    let text = DeviceArray::<f32>::from_dlpack(t, &stream)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("does not know the tensor's data address")
            || text.contains("not device memory"),
        "{text}"
    );
    assert_eq!(drops.load(Ordering::SeqCst), 6);
    drop(owner);
    stream.synchronize().unwrap();
}
