//! One launch, prepared once before any thread runs: the checked arguments, the
//! region table (argument buffers, constant tables, and which regions are per-block
//! shared memory), the function plans, and the hooks to the detector.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use super::config::{Arg, LaunchShape, Options};
use super::detect::{Detector, Region, Space};
use super::fault::Fault;
use super::memory::Buffer;
use super::plan::{mem_layout, plan_module, FnPlan};
use super::pointer::ptr;
use super::scalar;
use crate::ir::{self, ConstValue, ExprKind, Stmt, Type};
use crate::proc::abi::{self, ArgSlot};
use crate::proc::intrinsics::Effect;

/// What a region holds, for naming locations in faults.
#[derive(Clone, Debug)]
pub struct RegionInfo {
    pub name: String,
    pub space: Space,
    /// The type of the memory (a slice argument: an array of its elements).
    pub ty: Type,
    /// Where the named memory starts in the region (a slice argument's offset).
    pub base: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierKind {
    Block,
    Grid,
    // Hopper: clusters
    /// `cluster_sync()`: every non-exited thread of the block's cluster.
    Cluster,
    /// Not a barrier: the warp hands control back at a point where warps can
    /// communicate (an atomic, a fence, a memory access, a loop's next iteration), so
    /// that the scheduler can run another first. Ready again at once.
    Yield,
}

/// A warp arriving at a barrier (or yielding).
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub kind: BarrierKind,
    pub func: usize,
    pub expr: usize,
    /// A yield's source location (a barrier's is its expression's).
    pub loc: Option<crate::ir::SourceLoc>,
    pub lanes: u32,
    /// Lanes whose predicate (`sync_threads_count` and friends) was true.
    pub votes: u32,
    /// The warp's steps so far.
    pub steps: u64,
    /// A yield's address (the memory it is about to touch; `u64::MAX`: none, as at a
    /// loop's next iteration), so that a spin (the same place, the same address,
    /// nothing changed) is told from a loop that reads on.
    pub addr: u64,
}

/// The scheduler's answer when it releases a barrier (or ends the launch).
#[derive(Debug, Default)]
pub struct Release {
    pub count: u32,
    pub all: bool,
    pub any: bool,
    pub fault: Option<Box<Fault>>,
}

/// The device-side panics of a launch: the first one recorded (what the launch
/// reports, as the GPU's panic record keeps its first) and the blocks in which some
/// thread panicked (a barrier or warp operation there that a panicked thread misses
/// ends that block as the panic, not as divergence). Shared by the worker threads.
#[derive(Default)]
pub struct PanicRecord {
    inner: Mutex<(Option<Fault>, HashSet<[u32; 3]>)>,
}

impl PanicRecord {
    pub fn record(&self, block: [u32; 3], fault: Fault) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.0.get_or_insert(fault);
        inner.1.insert(block);
    }

    /// Whether a thread of `block` panicked.
    pub fn in_block(&self, block: [u32; 3]) -> bool {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.1.contains(&block)
    }

    /// Takes the first recorded panic and forgets the rest (a new schedule starts
    /// clean).
    pub fn take(&self) -> Option<Fault> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.1.clear();
        inner.0.take()
    }
}

pub struct Launch {
    pub module: ir::Module,
    pub plans: Vec<FnPlan>,
    pub kernel: usize,
    pub shape: LaunchShape,
    pub options: Options,
    /// The kernel parameters' initial slot values, in parameter order.
    pub arg_slots: Vec<u64>,
    /// Regions every block shares; per-block shared memory is `None` here.
    pub base_regions: Vec<Option<Arc<Buffer>>>,
    /// Per-block regions and their sizes.
    pub shared_regions: Vec<(usize, usize)>,
    pub regions: Vec<RegionInfo>,
    pub global_region: Vec<usize>,
    pub dynamic_region: usize,
    /// Local memory per thread (every function's frame, enough for any call chain).
    pub local_bytes: usize,
    /// Some function synchronises the block or the grid: warps must be suspendable.
    pub has_barriers: bool,
    /// Some function uses atomics or fences: threads can communicate through memory
    /// (and spin on it), so warps (and blocks) are interleaved at every such point.
    pub communicates: bool,
    /// Counts changes to global and shared memory by scheduled warps: a scheduler
    /// round that changes nothing (and releases nothing) made no progress.
    pub epoch: std::sync::atomic::AtomicU64,
    /// Scheduled groups running now, and how many of them make no progress: a
    /// group is a deadlock only when every running group is stuck (another group may
    /// be about to write what it waits for).
    pub running_groups: std::sync::atomic::AtomicUsize,
    pub stuck_groups: std::sync::atomic::AtomicUsize,
    pub cooperative: bool,
    /// The argument buffers, for restoring them between schedules.
    pub arg_buffers: Vec<Arc<Buffer>>,
    /// The detector, when the options ask for one.
    pub detector: Option<Detector>,
    /// Per region: whether the detector tracks it (false: nothing writes it, so
    /// accesses to it need not be reported).
    pub observed: Vec<bool>,
    pub panics: PanicRecord,
    // Hopper
    /// Who initialised each mbarrier, for the reports that name two sites.
    pub mbarriers: super::mbarrier_state::MbarrierRegistry,
    // Hopper: clusters
    /// The cluster shape (`[1, 1, 1]`: no clusters), set by [`Launch::in_clusters`].
    pub cluster: [u32; 3],
    /// Some function calls a cluster intrinsic: groups keep a cluster state.
    pub uses_clusters: bool,
}

fn launch_error(message: String) -> Fault {
    Fault::Launch(message)
}

impl Launch {
    pub fn prepare(
        module: &ir::Module,
        kernel: &str,
        shape: &LaunchShape,
        args: &[Arg],
        options: &Options,
    ) -> Result<Launch, Fault> {
        let handle = module
            .function_by_name(kernel)
            .filter(|h| module.functions[*h].kind == ir::FunctionKind::Kernel)
            .ok_or_else(|| launch_error(format!("no kernel `{kernel}` in the module")))?;
        let f = &module.functions[handle];
        if args.len() != f.params.len() {
            return Err(launch_error(format!(
                "`{kernel}` takes {} arguments but was given {}",
                f.params.len(),
                args.len()
            )));
        }
        if shape.grid.contains(&0) || shape.block.contains(&0) {
            return Err(launch_error(format!(
                "`{kernel}` launched with an empty grid or block ({:?} x {:?})",
                shape.grid, shape.block
            )));
        }
        let plans = plan_module(module).map_err(launch_error)?;
        let mut regions = vec![
            RegionInfo {
                name: "null".into(),
                space: Space::Global,
                ty: Type::Unit,
                base: 0,
            },
            RegionInfo {
                name: "local memory".into(),
                space: Space::Global,
                ty: Type::Unit,
                base: 0,
            },
        ];
        let mut base_regions: Vec<Option<Arc<Buffer>>> = vec![None, None];
        let mut shared_regions = Vec::new();
        let mut global_region = Vec::new();
        for (k, (_, g)) in module.globals.iter().enumerate() {
            let (size, _) = mem_layout(&g.ty);
            let region = base_regions.len();
            global_region.push(region);
            let space = if g.space == ir::AddressSpace::Shared {
                Space::Shared
            } else {
                Space::Global
            };
            regions.push(RegionInfo {
                name: user_name(module, k).unwrap_or_else(|| g.name.clone()),
                space,
                ty: g.ty.clone(),
                base: 0,
            });
            if g.space == ir::AddressSpace::Shared {
                shared_regions.push((region, size as usize));
                base_regions.push(None);
            } else {
                let buffer = Buffer::new(size as usize);
                if let Some(init) = &g.init {
                    write_const(&buffer, 0, init);
                }
                base_regions.push(Some(Arc::new(buffer)));
            }
        }
        let dynamic_region = base_regions.len();
        base_regions.push(None);
        shared_regions.push((dynamic_region, shape.dynamic_shared_bytes as usize));
        regions.push(RegionInfo {
            name: "dynamic shared memory".into(),
            space: Space::Shared,
            ty: Type::array(
                Type::Scalar(ir::ScalarType::U8),
                u64::from(shape.dynamic_shared_bytes),
            ),
            base: 0,
        });
        let mut arg_slots = Vec::new();
        let mut arg_buffers: Vec<Arc<Buffer>> = Vec::new();
        for (k, (p, a)) in f.params.iter().zip(args).enumerate() {
            let mismatch = || {
                launch_error(format!(
                    "argument {k} (`{}`) of `{kernel}` must be a `{}`, got {}",
                    p.name,
                    p.ty,
                    describe_arg(a)
                ))
            };
            // The parameter's slots in the kernel ABI (`proc::abi`), each read from
            // the one `Arg` that stands for the whole parameter.
            for slot in abi::param_slots(&p.ty).ok_or_else(mismatch)? {
                match (slot, a) {
                    (ArgSlot::Scalar(want), Arg::Scalar { ty, bits }) if *ty == want => {
                        arg_slots.push(scalar::truncate(*ty, *bits));
                    }
                    (ArgSlot::Struct, Arg::Value { ty, bytes }) if *ty == p.ty => {
                        let Some(value) = super::values::value_slots(ty, bytes) else {
                            return Err(launch_error(format!(
                                "argument {k} (`{}`) of `{kernel}`: {} bytes are no `{ty}`",
                                p.name,
                                bytes.len()
                            )));
                        };
                        arg_slots.extend(value);
                    }
                    (
                        ArgSlot::Pointer,
                        Arg::Slice {
                            elem,
                            buffer,
                            offset,
                            len,
                            mutable,
                        },
                    ) if p
                        .ty
                        .slice_elem()
                        .is_some_and(|(e, want_mut)| e == *elem && (*mutable || !want_mut)) =>
                    {
                        let bytes = (*len as u64).checked_mul(mem_layout(elem).0);
                        if bytes.is_none_or(|b| !buffer.contains(*offset as u64, b)) {
                            return Err(launch_error(format!(
                                "argument {k} (`{}`) of `{kernel}`: {len} elements of `{elem}` at byte {offset} do not fit its buffer of {} bytes",
                                p.name,
                                buffer.len()
                            )));
                        }
                        let mut args = ArgRegions {
                            regions: &mut regions,
                            base_regions: &mut base_regions,
                            arg_buffers: &mut arg_buffers,
                        };
                        let region = args.region_of(buffer, || RegionInfo {
                            name: p.name.clone(),
                            space: Space::Global,
                            ty: Type::array(elem.clone(), *len as u64),
                            base: *offset as u64,
                        });
                        arg_slots.push(ptr(region as u64, *offset as u64));
                    }
                    // Checked with the pointer, which comes first.
                    (ArgSlot::Length, Arg::Slice { len, .. }) => arg_slots.push(*len as u64),
                    // Hopper: TMA: the descriptor in a region of its own, the tensor's
                    // address (its buffer's region) patched in.
                    (ArgSlot::TensorMap, map) => {
                        let (layout, buffer) =
                            super::tma_args::map_layout(&p.ty, map).map_err(|why| {
                                launch_error(format!(
                                    "argument {k} (`{}`) of `{kernel}` must be a `{}`, got {why}",
                                    p.name, p.ty
                                ))
                            })?;
                        let mut args = ArgRegions {
                            regions: &mut regions,
                            base_regions: &mut base_regions,
                            arg_buffers: &mut arg_buffers,
                        };
                        let tensor = args.region_of(buffer, || RegionInfo {
                            name: format!("the tensor of map `{}`", p.name),
                            space: Space::Global,
                            ty: super::tma_args::tensor_type(&layout, buffer),
                            base: 0,
                        });
                        let descriptor =
                            super::tma_args::descriptor(&layout, ptr(tensor as u64, 0));
                        base_regions.push(Some(Arc::new(descriptor)));
                        regions.push(RegionInfo {
                            name: format!("tensor map `{}`", p.name),
                            space: Space::Global,
                            ty: super::tma_args::DESCRIPTOR_TYPE.clone(),
                            base: 0,
                        });
                        arg_slots.push(ptr(base_regions.len() as u64 - 1, 0));
                    }
                    (ArgSlot::TensorMapTile, map) => {
                        arg_slots.push(super::tma_args::tile_word_of(map).ok_or_else(mismatch)?)
                    }
                    _ => return Err(mismatch()),
                }
            }
        }
        let local_bytes: u64 = plans
            .iter()
            .map(|p| u64::from(p.frame_bytes))
            .sum::<u64>()
            .max(8);
        let local_bytes = local_bytes.div_ceil(16) * 16;
        if local_bytes > 1 << 20 {
            return Err(launch_error(format!(
                "`{kernel}` needs {local_bytes} bytes of local memory per thread; the simulator holds at most 1 MiB"
            )));
        }
        let mut has_barriers = false;
        let mut communicates = false;
        let mut cooperative = false;
        for (_, func) in module.functions.iter() {
            for (_, e) in func.exprs.iter() {
                if let ExprKind::Intrinsic { intrinsic, .. } = e.kind {
                    // From the intrinsic table's effect column: a new row needs nothing here.
                    match crate::proc::intrinsics::effect(intrinsic) {
                        Effect::Barrier => has_barriers = true,
                        Effect::GridBarrier => {
                            has_barriers = true;
                            cooperative = true;
                        }
                        // Hopper: clusters
                        Effect::ClusterBarrier => has_barriers = true,
                        // async copies: a copy lands at its wait, seen by other threads.
                        Effect::Atomic { .. } | Effect::Fence | Effect::Memory => {
                            communicates = true
                        }
                        Effect::Pure | Effect::Warp => {}
                    }
                }
            }
        }
        let mut observed = Vec::new();
        let detector = options.detect.then(|| {
            let files = module
                .functions
                .iter()
                .map(|(_, f)| f.file.clone())
                .collect();
            let table: Vec<Region> = regions
                .iter()
                .enumerate()
                .map(|(k, info)| detector_region(module, info, &base_regions, k, f))
                .collect();
            observed = table.iter().map(|r| r.tracked).collect();
            Detector::new(shape, table, files).defer_uninitialised_reads()
        });
        Ok(Launch {
            detector,
            panics: PanicRecord::default(),
            // Hopper
            mbarriers: Default::default(),
            // Hopper: clusters
            cluster: [1, 1, 1],
            uses_clusters: module.functions.iter().any(|(_, f)| {
                f.exprs.iter().any(|(_, e)| {
                    matches!(
                        e.kind,
                        ExprKind::Intrinsic {
                            intrinsic: ir::Intrinsic::Cluster(_)
                                | ir::Intrinsic::Tma(ir::TmaOp::LoadMulticast),
                            ..
                        }
                    )
                })
            }),
            module: module.clone(),
            plans,
            kernel: handle.index(),
            shape: *shape,
            options: options.clone(),
            arg_slots,
            base_regions,
            shared_regions,
            regions,
            global_region,
            dynamic_region,
            local_bytes: local_bytes as usize,
            has_barriers,
            observed,
            communicates,
            epoch: std::sync::atomic::AtomicU64::new(0),
            running_groups: std::sync::atomic::AtomicUsize::new(0),
            stuck_groups: std::sync::atomic::AtomicUsize::new(0),
            cooperative,
            arg_buffers,
        })
    }

    // Hopper: clusters
    /// The launch in clusters of `cluster` blocks (`proc::cluster::shape_error`'s rule).
    pub fn in_clusters(mut self, cluster: [u32; 3]) -> Result<Launch, Fault> {
        use crate::proc::cluster::{grid_sync_error, shape_error, MAX_PORTABLE_BLOCKS};
        let rejected = shape_error(self.shape.grid, cluster, MAX_PORTABLE_BLOCKS)
            .or_else(|| grid_sync_error(cluster).filter(|_| self.cooperative));
        if let Some((limit, detail)) = rejected {
            return Err(launch_error(format!("launch rejected ({limit}): {detail}")));
        }
        self.cluster = cluster;
        // A cluster's blocks wait for each other: its warps must be suspendable.
        self.has_barriers |= cluster != [1, 1, 1];
        Ok(self)
    }

    /// Whether the launch runs in clusters of more than one block.
    pub fn clustered(&self) -> bool {
        self.cluster != [1, 1, 1]
    }

    /// A block's region table: the shared regions plus fresh shared memory.
    pub fn block_regions(&self) -> Vec<Option<Arc<Buffer>>> {
        let mut table = self.base_regions.clone();
        for &(region, size) in &self.shared_regions {
            table[region] = Some(Arc::new(Buffer::new(size)));
        }
        table
    }

    /// Names the memory at `offset` of `region` in the kernel's words: "`out`[17]",
    /// "shared `tile`[3][4]".
    pub fn describe(&self, region: usize, offset: u64) -> String {
        let Some(info) = self.regions.get(region) else {
            return format!("address {:#x} (no buffer)", ptr(region as u64, offset));
        };
        if region == 0 {
            return "an address outside every buffer".into();
        }
        let prefix = if info.space == Space::Shared {
            "shared "
        } else {
            ""
        };
        let mut at = offset.wrapping_sub(info.base) as i128;
        if offset < info.base {
            at = -((info.base - offset) as i128);
        }
        let mut text = format!("{prefix}`{}`", info.name);
        let mut ty = &info.ty;
        while let Type::Array { elem, .. } = ty {
            let stride = mem_layout(elem).0.max(1) as i128;
            text.push_str(&format!("[{}]", at.div_euclid(stride)));
            at = at.rem_euclid(stride);
            ty = elem;
        }
        text
    }
}

/// The region table of a launch being prepared, which argument buffers join.
struct ArgRegions<'r> {
    regions: &'r mut Vec<RegionInfo>,
    base_regions: &'r mut Vec<Option<Arc<Buffer>>>,
    arg_buffers: &'r mut Vec<Arc<Buffer>>,
}

impl ArgRegions<'_> {
    /// The region of argument buffer `buffer`: an earlier argument's over the same
    /// buffer, or a new one described by `info`.
    fn region_of(&mut self, buffer: &Arc<Buffer>, info: impl FnOnce() -> RegionInfo) -> usize {
        if let Some(r) = self
            .base_regions
            .iter()
            .position(|r| r.as_ref().is_some_and(|b| Arc::ptr_eq(b, buffer)))
        {
            return r;
        }
        self.base_regions.push(Some(buffer.clone()));
        self.arg_buffers.push(buffer.clone());
        self.regions.push(info());
        self.base_regions.len() - 1
    }
}

fn describe_arg(a: &Arg) -> String {
    match a {
        Arg::Scalar { ty, .. } => format!("a `{ty}`"),
        Arg::Value { ty, .. } => format!("a `{ty}`"),
        Arg::Slice {
            elem,
            mutable: true,
            ..
        } => format!("a `&mut [{elem}]`"),
        Arg::Slice { elem, .. } => format!("a `&[{elem}]`"),
        // Hopper: TMA
        Arg::TensorMap { .. } => "a tensor map".into(),
    }
}

/// Writes a constant table's contents at `offset`.
fn write_const(buffer: &Buffer, offset: u64, value: &ConstValue) {
    match value {
        ConstValue::Scalar { ty, value } => {
            let v = scalar::literal(*ty, value);
            buffer.store(offset as usize, ty.size_bytes(), v);
        }
        ConstValue::Array { elem, items } => {
            let stride = mem_layout(elem).0;
            for (k, item) in items.iter().enumerate() {
                write_const(buffer, offset + k as u64 * stride, item);
            }
        }
    }
}

/// What the detector knows of region `k`: its size from the element the kernel
/// indexes, the narrowest access (dynamic shared memory: the smallest `take`), and
/// whether anything can write it.
fn detector_region(
    module: &ir::Module,
    info: &RegionInfo,
    base_regions: &[Option<Arc<Buffer>>],
    k: usize,
    kernel: &ir::Function,
) -> Region {
    let mut dims = Vec::new();
    let mut ty = &info.ty;
    while let Type::Array { elem, len } = ty {
        dims.push(*len);
        ty = elem;
    }
    let mut elem_bytes = ty.scalar().map_or(1, |s| s.size_bytes());
    let bytes = mem_layout(&info.ty).0;
    let mut tracked = info.space == Space::Shared;
    if info.space == Space::Shared && dims.len() == 1 && info.name == "dynamic shared memory" {
        dims.clear();
        elem_bytes = module
            .functions
            .iter()
            .flat_map(|(_, f)| f.exprs.iter())
            .filter_map(|(_, e)| match e.kind {
                ExprKind::DynamicSharedTake { elem, .. } => Some(elem.size_bytes()),
                _ => None,
            })
            .min()
            .unwrap_or(1);
    }
    if info.space == Space::Global && k >= 2 {
        // An argument buffer: tracked if any parameter over it is mutable.
        tracked = kernel
            .params
            .iter()
            .any(|p| p.name == info.name && p.ty.slice_elem().is_some_and(|(_, m)| m));
        if dims.len() == 1 {
            dims.clear();
        }
    }
    let _ = base_regions;
    Region {
        name: info.name.clone(),
        space: info.space,
        bytes,
        elem_bytes,
        dims,
        tracked,
    }
}

/// The name the kernel gives global `k` (`let tile = shared_array::<..>()` makes a
/// global with a generated symbol; the local bound to its address is what the user
/// wrote).
fn user_name(module: &ir::Module, k: usize) -> Option<String> {
    for (_, f) in module.functions.iter() {
        let mut name = None;
        ir::visit::stmts_in_function(f, &mut |stmt| {
            let Stmt::Let {
                local,
                init: Some(init),
            } = stmt
            else {
                return;
            };
            if let ExprKind::AddressOf { place, .. } = &f.exprs[*init].kind {
                if place.root == ir::PlaceRoot::Global(ir::Handle::new(k))
                    && place.projections.is_empty()
                {
                    name.get_or_insert_with(|| f.locals[*local].name.clone());
                }
            }
        });
        if name.is_some() {
            return name;
        }
    }
    None
}
