//! CUDA graphs: `stream.capture(|s| { launch!(k[g, b, s](..))?; ..; Ok(()) })` records
//! the launches queued on `s` into a [`Graph`] instead of running them, and
//! `graph.launch(&stream)` replays the whole sequence with one driver call
//! (numba-cuda users ask for it: many small kernels cost one launch each).
//!
//! What makes a replay safe: the graph keeps the memory of every device array a
//! captured launch used alive (dropping the array early only drops its handle), and a
//! replay orders itself after the arrays' uses on other streams as a launch does
//! (`crate::memory::allocation`). Launches with host slices cannot be captured (their copies and
//! synchronisation are not stream work a graph can hold), nor arrays over memory that
//! cudajit does not own (a graph could outlive it): both are an `Err` at capture.
//!
//! The launches are captured on a private non-blocking stream (see `Stream::capture`).
//! A device-side panic of a replayed kernel lands in the panic record of the stream
//! `capture` was called on: `synchronize` of that stream (replaying on it, the usual
//! case) or `Device::synchronize` reports it.
//!
//! On Hopper and later, consecutive kernel nodes overlap: a kernel's launch begins
//! while the one before it ends, its first instruction waiting for that one's results
//! (`overlap`).
//!
//! On the simulator the capture records each launch (kernel, shape, arguments) and a
//! replay runs them in order, with the same rules.

use std::any::Any;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use cudarc::driver::{result, sys};
use kernel_device::back::sim::Buffer;
use kernel_device::ir::{ScalarType, Type};
use kernel_device::source::FnSource;

use crate::compile::cache::KernelCache;
use crate::device::stream::{Stream, StreamHandle, StreamOwner, StreamRef};
use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};
use crate::executor::panic::StreamFaults;
use crate::launch::args::{ArgKind, KernelArg};
use crate::launch::config::{Dim, LaunchConfig};
use crate::memory::allocation::Allocation;

// Hopper: programmatic edges between a graph's kernel nodes
mod overlap;

/// What a capture in progress has seen.
#[derive(Default)]
pub(crate) struct CaptureLog {
    /// GPU memory of the arrays the captured launches use, and whether one writes it.
    arrays: Vec<(Arc<Allocation>, bool)>,
    /// The launches recorded on the simulator.
    sim_launches: Vec<SimLaunch>,
}

/// The capture log in a capturing stream's slot (see `StreamHandle::capture`).
fn log_of(slot: &mut Option<Box<dyn Any>>) -> &mut CaptureLog {
    slot.get_or_insert_with(|| Box::new(CaptureLog::default()))
        .downcast_mut()
        .expect("a stream's capture slot holds a CaptureLog")
}

/// One launch recorded on the simulator.
struct SimLaunch {
    source: &'static FnSource,
    cache: &'static KernelCache,
    grid: Dim,
    block: Dim,
    shared_bytes: usize,
    args: Vec<RecordedArg>,
}

enum RecordedArg {
    Scalar(ScalarType, u64),
    /// A struct or enum by value: its bytes, copied at capture.
    Value(Type, Vec<u8>),
    Device {
        elem: Type,
        device: crate::device::DeviceId,
        mutable: bool,
        buffer: Arc<Buffer>,
        offset: usize,
        len: i64,
    },
}

/// A captured sequence of launches, replayed by [`Graph::launch`].
pub struct Graph {
    replay: Replay,
    device: Device,
    /// Where replayed kernels report device-side panics (the capture stream's).
    _faults: Arc<StreamFaults>,
    /// Number of launches captured.
    launches: usize,
    /// Kernel-to-kernel edges made programmatic (`overlap`).
    overlapped: usize,
}

enum Replay {
    Cuda {
        graph: sys::CUgraph,
        exec: sys::CUgraphExec,
        arrays: Vec<(Arc<Allocation>, bool)>,
        generation: u64,
    },
    Sim(Vec<SimLaunch>),
}

// SAFETY: graph handles may be used from any thread with the context current (every
// method binds it); the rest is shared data.
unsafe impl Send for Graph {}
unsafe impl Sync for Graph {}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Graph of {} launch(es) on {}",
            self.launches, self.device
        )
    }
}

fn capture_error(detail: String) -> Error {
    Error::Refused {
        operation: "graph capture",
        detail,
    }
}

impl Stream {
    /// Records the launches `body` queues on the stream it is given into a [`Graph`]
    /// instead of running them. `Err` when `body` fails (its error; the partial graph
    /// is discarded) or when a launch in it passes host slices. Anything else `body`
    /// does (copies, allocations) happens at once and is not part of the graph. A
    /// device-side panic of a replay is reported by this stream's `synchronize`.
    pub fn capture(&self, body: impl FnOnce(&Stream) -> Result<()>) -> Result<Graph> {
        let device = self.device().clone();
        let cuda = !device.is_simulator();
        // The launches are captured on a private non-blocking stream, so that work on
        // the legacy NULL stream meanwhile (an allocation, a copy, loading a kernel's
        // module at its first launch) neither joins the graph nor breaks the capture
        // (a blocking stream's capture fails on any legacy-stream call). It shares
        // this stream's panic record: a replayed kernel's panic is reported here.
        let raw = if cuda {
            let _context = self.device().bind()?;
            self.ensure_current()?;
            let _guard = device.bind()?;
            result::stream::create(result::stream::StreamKind::NonBlocking)
                .call("cuStreamCreate")?
        } else {
            std::ptr::null_mut()
        };
        let owner = if cuda {
            StreamOwner::Ours
        } else {
            StreamOwner::Foreign
        };
        let handle = StreamHandle::new(raw, &device, owner);
        let capture_stream =
            Stream::from_parts(Some(handle.clone()), device.clone(), self.faults()?);
        *handle.capture.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(Box::new(CaptureLog::default()));
        handle.capturing.store(true, Ordering::Relaxed);
        let begun = if cuda {
            // SAFETY: a live stream of the current context. Relaxed mode: calls of
            // this thread on other streams meanwhile are not refused.
            device.watch(
                unsafe {
                    result::stream::begin_capture(
                        handle.raw,
                        sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
                    )
                }
                .call("cuStreamBeginCapture"),
            )
        } else {
            Ok(())
        };
        let outcome = begun.and_then(|()| body(&capture_stream));
        let ended = if cuda {
            // SAFETY: the capture begun above (when it failed to begin, this call
            // fails too and nothing is kept).
            Some(unsafe { result::stream::end_capture(handle.raw) }.call("cuStreamEndCapture"))
        } else {
            None
        };
        handle.capturing.store(false, Ordering::Relaxed);
        let log = handle
            .capture
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .and_then(|log| log.downcast::<CaptureLog>().ok())
            .map_or_else(CaptureLog::default, |log| *log);
        let mut overlapped = 0;
        let replay = match ended {
            None => {
                outcome?;
                Replay::Sim(log.sim_launches)
            }
            Some(ended) => {
                let graph = match (outcome, device.watch(ended)) {
                    (Ok(()), Ok(graph)) => graph,
                    (outcome, ended) => {
                        if let Ok(graph) = ended {
                            // SAFETY: made by the capture, destroyed once.
                            let _ = unsafe { result::graph::destroy(graph) };
                        }
                        outcome?;
                        return Err(ended.expect_err("one of the two failed"));
                    }
                };
                let mut rewritten = overlap::overlap_kernel_nodes(graph);
                // SAFETY: a graph the capture just produced.
                let instantiate = || unsafe {
                    result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0))
                };
                let instantiated = match instantiate() {
                    Err(_) if !rewritten.is_empty() => {
                        overlap::restore(graph, &rewritten);
                        rewritten.clear();
                        instantiate()
                    }
                    done => done,
                };
                overlapped = rewritten.len();
                match instantiated.call("cuGraphInstantiate") {
                    Ok(exec) => Replay::Cuda {
                        graph,
                        exec,
                        arrays: dedup(log.arrays),
                        generation: device.generation(),
                    },
                    Err(error) => {
                        // SAFETY: as above.
                        let _ = unsafe { result::graph::destroy(graph) };
                        return Err(error);
                    }
                }
            }
        };
        let launches = match &replay {
            Replay::Sim(l) => l.len(),
            Replay::Cuda { graph, .. } => node_count(*graph),
        };
        Ok(Graph {
            replay,
            device,
            _faults: self.faults()?,
            launches,
            overlapped,
        })
    }
}

/// One entry per allocation, writing if any captured launch writes it.
fn dedup(arrays: Vec<(Arc<Allocation>, bool)>) -> Vec<(Arc<Allocation>, bool)> {
    let mut out: Vec<(Arc<Allocation>, bool)> = Vec::new();
    for (memory, write) in arrays {
        match out.iter_mut().find(|(m, _)| Arc::ptr_eq(m, &memory)) {
            Some(entry) => entry.1 |= write,
            None => out.push((memory, write)),
        }
    }
    out
}

fn node_count(graph: sys::CUgraph) -> usize {
    let mut count = 0usize;
    // SAFETY: a live graph; a null node array asks for the count only.
    let status = unsafe { sys::cuGraphGetNodes(graph, std::ptr::null_mut(), &mut count) };
    if status == sys::CUresult::CUDA_SUCCESS {
        count
    } else {
        0
    }
}

impl Graph {
    /// Replays the captured launches on `stream`, after the uses of their arrays on
    /// other streams (asynchronous, like a launch on device arrays).
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        if stream.device() != &self.device {
            return Err(capture_error(format!(
                "the graph was captured on {} but the stream is on {}",
                self.device,
                stream.device()
            )));
        }
        match &self.replay {
            Replay::Cuda {
                exec,
                arrays,
                generation,
                ..
            } => {
                let _context = stream.device().bind()?;
                stream.ensure_current()?;
                if *generation != self.device.generation() {
                    return Err(Error::StaleAfterReset {
                        what: "this graph",
                        ordinal: self.device.ordinal(),
                    });
                }
                let _guard = self.device.bind()?;
                for (memory, write) in arrays {
                    self.device.watch(memory.use_on(stream.handle(), *write))?;
                }
                // SAFETY: a live executable graph and stream of the current context;
                // every array it uses is kept alive by `arrays`.
                self.device.watch(
                    unsafe { result::graph::launch(*exec, stream.cu_stream()) }
                        .call("cuGraphLaunch"),
                )
            }
            Replay::Sim(launches) => {
                let Some(sim) = self.device.as_sim() else {
                    unreachable!("a simulator graph belongs to a simulated device")
                };
                for launch in launches {
                    let mut args: Vec<KernelArg<'_>> =
                        launch.args.iter().map(RecordedArg::as_arg).collect();
                    let config = LaunchConfig {
                        grid: launch.grid,
                        block: launch.block,
                        stream: Some(stream),
                        shared_bytes: launch.shared_bytes,
                        cluster: None,
                    };
                    crate::launch::sim::launch(
                        launch.source,
                        launch.cache,
                        config,
                        &self.device,
                        sim,
                        &self._faults,
                        &mut args,
                    )?;
                }
                Ok(())
            }
        }
    }

    /// Number of launches (graph nodes) captured.
    pub fn len(&self) -> usize {
        self.launches
    }

    pub fn is_empty(&self) -> bool {
        self.launches == 0
    }

    /// How many of the graph's kernel nodes start while the kernel before them ends
    /// (programmatic edges, Hopper and later; see the module docs): 0 on the simulator,
    /// before sm_90, or with `CUDAJIT_GRAPH_OVERLAP=0`.
    pub fn overlapped_nodes(&self) -> usize {
        self.overlapped
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if let Replay::Cuda {
            graph,
            exec,
            generation,
            ..
        } = &self.replay
        {
            if let Some(_guard) = self.device.bind_if_current(*generation) {
                // SAFETY: made by `capture`, destroyed only here; a replay in flight
                // completes first (the driver defers the release).
                unsafe {
                    let _ = result::graph::exec_destroy(*exec);
                    let _ = result::graph::destroy(*graph);
                }
            }
        }
    }
}

impl RecordedArg {
    fn as_arg(&self) -> KernelArg<'_> {
        match self {
            RecordedArg::Scalar(ty, bits) => KernelArg {
                kind: ArgKind::Scalar(*ty),
                value: *bits,
                len: 0,
            },
            RecordedArg::Value(ty, bytes) => KernelArg {
                kind: ArgKind::Value {
                    ty: ty.clone(),
                    bytes: bytes.clone(),
                },
                value: 0,
                len: 0,
            },
            RecordedArg::Device {
                elem,
                device,
                mutable,
                buffer,
                offset,
                len,
            } => KernelArg {
                kind: ArgKind::Device {
                    elem: elem.clone(),
                    device: *device,
                    mutable: *mutable,
                    sim_buffer: Some(buffer),
                    sim_offset: *offset,
                    allocation: None,
                },
                value: 0,
                len: *len,
            },
        }
    }
}

fn no_host_slices(kernel: &str) -> Error {
    Error::ArgumentMismatch {
        kernel: kernel.to_string(),
        detail: "a host slice cannot be passed to a launch that a graph captures (its \
                 copies are not stream work); pass a `DeviceArray`"
            .into(),
    }
}

/// At a GPU launch on a capturing stream: keeps the memory of its arrays for the graph.
pub(crate) fn note_captured_arrays(
    stream: &StreamRef,
    kernel: &str,
    args: &[KernelArg<'_>],
) -> Result<()> {
    let handle = stream.as_ref().expect("only a created stream captures");
    let mut arrays = Vec::new();
    for arg in args {
        if let ArgKind::Host { .. } | ArgKind::HostMut { .. } = &arg.kind {
            return Err(no_host_slices(kernel));
        }
        // Device arrays, and the arrays under tensor maps (the graph orders them too).
        if let Some((memory, mutable)) = arg.kind.ordered_memory() {
            if memory.is_borrowed() {
                return Err(Error::ArgumentMismatch {
                    kernel: kernel.to_string(),
                    detail: "an array over memory that cudajit does not own cannot be \
                             captured into a graph (the graph could outlive the memory)"
                        .into(),
                });
            }
            arrays.push((Arc::clone(memory), mutable));
        }
    }
    let mut log = handle.capture.lock().unwrap_or_else(|p| p.into_inner());
    log_of(&mut log).arrays.extend(arrays);
    Ok(())
}

/// At a simulated launch on a capturing stream: checks it as a launch would and records
/// it instead of running it.
pub(crate) fn record_sim_launch(
    source: &'static FnSource,
    cache: &'static KernelCache,
    config: &LaunchConfig<'_>,
    device: &Device,
    args: &[KernelArg<'_>],
) -> Result<()> {
    crate::launch::sim::check_launch(source, cache, config, device, args)?;
    let mut recorded = Vec::with_capacity(args.len());
    for arg in args {
        recorded.push(match &arg.kind {
            ArgKind::Scalar(ty) => RecordedArg::Scalar(*ty, arg.value),
            ArgKind::Value { ty, bytes } => RecordedArg::Value(ty.clone(), bytes.clone()),
            ArgKind::Host { .. } | ArgKind::HostMut { .. } => {
                return Err(no_host_slices(source.name))
            }
            // Hopper: TMA
            ArgKind::TensorMap(_) => {
                return Err(Error::ArgumentMismatch {
                    kernel: source.name.to_string(),
                    detail:
                        "a simulated launch with a tensor map cannot be captured into a graph yet"
                            .into(),
                })
            }
            ArgKind::Device {
                elem,
                device,
                mutable,
                sim_buffer,
                sim_offset,
                ..
            } => RecordedArg::Device {
                elem: elem.clone(),
                device: *device,
                mutable: *mutable,
                buffer: Arc::clone(sim_buffer.expect("a simulated array has a buffer")),
                offset: *sim_offset,
                len: arg.len,
            },
        });
    }
    let stream = config.stream.expect("only a created stream captures");
    let handle = stream
        .handle()
        .as_ref()
        .expect("a created stream has a handle");
    let mut log = handle.capture.lock().unwrap_or_else(|p| p.into_inner());
    log_of(&mut log).sim_launches.push(SimLaunch {
        source,
        cache,
        grid: config.grid,
        block: config.block,
        shared_bytes: config.shared_bytes,
        args: recorded,
    });
    Ok(())
}
