//! A launch on a simulated device: the same checks as on a GPU (shape against the
//! device's limits, arguments against the kernel's parameters, shared memory,
//! co-residency of a cooperative grid), then the arguments as simulator [`Arg`]s (host
//! slices copied into fresh buffers, device arrays passed as their buffers), one run of
//! the interpreter, `&mut` host slices copied back, and the fault as an [`Error`].

use std::sync::Arc;

use kernel_device::back::sim::{self, Arg, Buffer, Fault, LaunchShape, ThreadId};
use kernel_device::source::FnSource;

use crate::compile::cache::KernelCache;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::executor::panic::StreamFaults;
use crate::launch::args::{check_args, ArgKind, KernelArg};
use crate::launch::config::{LaunchConfig, ValidLaunch};
use crate::launch::cooperative::{check_co_resident, check_support};

use crate::compile::sim_kernel::SimKernel;
use crate::executor::sim::{blocks_per_multiprocessor, SimDevice};

/// Checks the launch as a GPU would and returns the kernel and its final shape.
fn prepare(
    source: &'static FnSource,
    cache: &'static KernelCache,
    config: &LaunchConfig<'_>,
    device: &Device,
) -> Result<(&'static SimKernel, ValidLaunch)> {
    let valid = config.validate_for(source, device.limits())?;
    let kernel = cache.get_sim(source)?;
    let valid = valid.with_static_shared(source.name, kernel.static_shared, device.limits())?;
    Ok((kernel, valid))
}

/// The checks of a launch without running it (a launch a graph capture records).
pub(crate) fn check_launch(
    source: &'static FnSource,
    cache: &'static KernelCache,
    config: &LaunchConfig<'_>,
    device: &Device,
    args: &[KernelArg<'_>],
) -> Result<()> {
    let (kernel, valid) = prepare(source, cache, config, device)?;
    check_args(&kernel.name, &kernel.params, args, device.id())?;
    if kernel.cooperative {
        check_cooperative(kernel, &valid, device)?;
    }
    Ok(())
}

pub(crate) fn launch(
    source: &'static FnSource,
    cache: &'static KernelCache,
    config: LaunchConfig<'_>,
    device: &Device,
    sim: &SimDevice,
    faults: &StreamFaults,
    args: &mut [KernelArg<'_>],
) -> Result<()> {
    let valid = config.validate_for(source, device.limits())?;
    let kernel = cache.get_sim(source)?;
    check_args(&kernel.name, &kernel.params, args, device.id())?;
    let valid = valid.with_static_shared(source.name, kernel.static_shared, device.limits())?;
    if kernel.cooperative {
        check_cooperative(kernel, &valid, device)?;
    }
    let sim_args: Vec<Arg> = args.iter().map(to_sim_arg).collect();
    let shape = LaunchShape {
        grid: valid.grid,
        block: valid.block,
        dynamic_shared_bytes: valid.shared_bytes,
    };
    let options = crate::print::sim_options(&kernel.module, sim.options()); // print
    let outcome = run_guarded(kernel, (&shape, valid.cluster), &sim_args, &options);
    crate::print::flush_sim(&kernel.name, &kernel.module, &options); // print
                                                                     // `&mut` host slices come back whatever happened, as from a GPU.
    let mut has_host_slices = false;
    for (arg, sim_arg) in args.iter_mut().zip(&sim_args) {
        match (&mut arg.kind, sim_arg) {
            (ArgKind::HostMut { bytes, .. }, Arg::Slice { buffer, .. }) => {
                buffer.read(0, bytes);
                has_host_slices = true;
            }
            (ArgKind::Host { .. }, _) => has_host_slices = true,
            _ => {}
        }
    }
    crate::launch::args::write_back_staged(args);
    match outcome {
        Ok(_report) => Ok(()),
        Err(fault) => {
            let error = fault_error(&kernel.name, &shape, fault);
            if has_host_slices {
                Err(error)
            } else {
                faults.defer(error);
                Ok(())
            }
        }
    }
}

/// Runs the interpreter. It must not panic; if a bug makes it, the launch fails as an
/// `Err` rather than unwinding through the user's code.
#[allow(clippy::result_large_err)] // `Fault` is the simulator's interface; it is rare
fn run_guarded(
    kernel: &SimKernel,
    (shape, cluster): (&LaunchShape, [u32; 3]),
    args: &[Arg],
    options: &crate::SimOptions,
) -> std::result::Result<sim::Report, Fault> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Hopper: clusters
        sim::run_in_clusters(&kernel.module, &kernel.name, shape, cluster, args, options)
    }))
    .unwrap_or_else(|payload| Err(Fault::Launch(internal_error(payload))))
}

/// One launch argument as the simulator takes it: host slices are copied into a new
/// buffer (the simulator's device memory); device arrays pass their own buffer.
fn to_sim_arg(arg: &KernelArg<'_>) -> Arg {
    let slice = |elem, buffer: Arc<Buffer>, mutable, offset| Arg::Slice {
        elem,
        buffer,
        offset,
        len: arg.len as usize,
        mutable,
    };
    match &arg.kind {
        ArgKind::Scalar(ty) => Arg::Scalar {
            ty: *ty,
            bits: arg.value,
        },
        ArgKind::Value { ty, bytes } => Arg::Value {
            ty: ty.clone(),
            bytes: bytes.clone(),
        },
        ArgKind::Host { elem, bytes } => slice(elem.clone(), host_copy(bytes), false, 0),
        ArgKind::HostMut { elem, bytes } => slice(elem.clone(), host_copy(bytes), true, 0),
        ArgKind::Device {
            elem,
            mutable,
            sim_buffer,
            sim_offset,
            ..
        } => match sim_buffer {
            Some(buffer) => slice(elem.clone(), Arc::clone(buffer), *mutable, *sim_offset),
            // check_args refused GPU arrays for a simulated launch.
            None => slice(elem.clone(), Arc::new(Buffer::new(0)), *mutable, 0),
        },
        // Hopper: TMA
        ArgKind::TensorMap(map) => map.to_sim(),
    }
}

fn host_copy(bytes: &[u8]) -> Arc<Buffer> {
    let buffer = Buffer::new(bytes.len());
    buffer.write(0, bytes);
    Arc::new(buffer)
}

/// A simulator fault as the runtime's error: a panic as the same `KernelPanic` a GPU
/// gives (linear block and thread index, as the GPU's panic record holds them), the
/// rest as `Error::Simulator` with the fault's sentence.
pub(crate) fn fault_error(kernel: &str, shape: &LaunchShape, fault: Fault) -> Error {
    match fault {
        Fault::Panic {
            message,
            site,
            thread,
        } => {
            let (block, thread) = linear_ids(shape, &thread);
            Error::KernelPanic {
                kernel: kernel.to_string(),
                file: site.file,
                line: site.line,
                column: site.column,
                message,
                block,
                thread,
            }
        }
        fault => Error::Simulator {
            kernel: kernel.to_string(),
            fault: Box::new(fault),
        },
    }
}

/// `x + y * dx + z * dx * dy` for the block in the grid and the thread in the block.
fn linear_ids(shape: &LaunchShape, who: &ThreadId) -> (u32, u32) {
    let linear = |[x, y, z]: [u32; 3], [dx, dy, _]: [u32; 3]| {
        x.wrapping_add(y.wrapping_mul(dx))
            .wrapping_add(z.wrapping_mul(dx).wrapping_mul(dy))
    };
    (
        linear(who.block, shape.grid),
        linear(who.thread, shape.block),
    )
}

fn internal_error(payload: Box<dyn std::any::Any + Send>) -> String {
    let text = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    format!("internal error in the simulator (please report it): {text}")
}

/// `kernel::max_cooperative_grid_blocks_for(config)` on a simulated device: what an
/// sm_90 GPU would co-schedule, so that a grid sized here also fits the GPU.
pub(crate) fn max_cooperative_grid_blocks(
    source: &'static FnSource,
    cache: &'static KernelCache,
    config: &LaunchConfig<'_>,
    device: &Device,
) -> Result<u32> {
    let (kernel, valid) = prepare(source, cache, config, device)?;
    check_support(&kernel.name, device.limits())?;
    Ok(blocks_per_multiprocessor_for(kernel, &valid).saturating_mul(device.multiprocessor_count()))
}

/// A cooperative launch's checks on a simulated device, as on a GPU: the device
/// supports cooperative launches, and the whole grid is resident at once on sm_90.
fn check_cooperative(kernel: &SimKernel, valid: &ValidLaunch, device: &Device) -> Result<()> {
    check_support(&kernel.name, device.limits())?;
    let per_sm = blocks_per_multiprocessor_for(kernel, valid);
    check_co_resident(&kernel.name, valid, per_sm, device.multiprocessor_count())
}

/// How many blocks of this launch an sm_90 multiprocessor holds at once (the kernel's
/// static shared memory counted with the launch's dynamic shared memory).
fn blocks_per_multiprocessor_for(kernel: &SimKernel, valid: &ValidLaunch) -> u32 {
    let threads = valid.block.iter().product::<u32>();
    blocks_per_multiprocessor(
        threads,
        valid.shared_bytes.saturating_add(kernel.static_shared),
    )
}

#[cfg(test)]
mod tests;
