//! The optimiser's decisions as values: ranges of named expressions, launch proofs of
//! small kernels lowered by the frontend (no NVVM text is read here).

use super::launch_proof::Bound;
use super::ranges::Interval;
use super::{optimise, Optimised};
use crate::front::{lower_sources, tests::source};
use crate::ir::{Axis, ExprKind, Function, Handle, Module, Place, Projection, Stmt};
use crate::source::SourceKind;

fn lower(text: &str) -> Module {
    lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"))
}

fn kernel(module: &Module) -> (Handle<Function>, &Function) {
    module.kernels().next().expect("one kernel")
}

/// The first index of every place the kernel's top-level statements assign, in order.
fn assigned_indices(function: &Function) -> Vec<Handle<crate::ir::Expr>> {
    let first_index = |place: &Place| match place.projections.first() {
        Some(Projection::Index(i)) => Some(*i),
        _ => None,
    };
    function
        .body
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Assign { place, .. } => first_index(place),
            _ => None,
        })
        .collect()
}

/// The indices among `original`'s expressions that `optimised` leaves unchecked (not
/// counting the copies that versioning adds).
fn unchecked_originals(original: &Function, optimised: &Function) -> Vec<Handle<crate::ir::Expr>> {
    let mut found: Vec<_> = optimised
        .unchecked_indices
        .iter()
        .copied()
        .filter(|h| h.index() < original.exprs.len())
        .collect();
    found.sort_by_key(|h| h.index());
    found
}

fn ranges_of(opt: &Optimised) -> super::ranges::Ranges<'_> {
    opt.ranges(kernel(&opt.module).0)
}

#[test]
fn thread_index_plus_one_is_bounded_by_the_required_block() {
    let mut module = lower(
        "fn k(out: &mut [u32]) {
            let mut tile = [0u32; 34];
            let tx = thread_idx().x as usize;
            tile[tx + 1] = 1;
            tile[tx + 2] = 2;
            out[0] = tile[0];
        }",
    );
    // Without a required block, `tid.x` is only below 1024.
    let opt = optimise(module.clone());
    let [a, b, _] = assigned_indices(kernel(&module).1)[..] else {
        panic!("three indexed stores");
    };
    assert_eq!(
        ranges_of(&opt).interval(a),
        Some(Interval { min: 1, max: 1024 })
    );
    assert!(!ranges_of(&opt).always_below(a, 34));
    // Only `tile[0]`'s index is recorded as proven.
    let unchecked = unchecked_originals(kernel(&module).1, kernel(&opt.module).1);
    assert_eq!(unchecked.len(), 1, "{unchecked:?}");
    assert!(!unchecked.contains(&a));
    drop(opt);

    let (h, _) = kernel(&module);
    module.functions[h].options.launch_bounds = Some(crate::ir::LaunchBounds {
        max_threads: 32,
        min_blocks: 0,
        block_dim: Some([32, 1, 1]),
    });
    let opt = optimise(module.clone());
    assert_eq!(opt.block_dim, Some([32, 1, 1]));
    assert_eq!(
        ranges_of(&opt).interval(a),
        Some(Interval { min: 1, max: 32 })
    );
    assert!(ranges_of(&opt).always_below(a, 34));
    assert_eq!(
        ranges_of(&opt).interval(b),
        Some(Interval { min: 2, max: 33 })
    );
    assert!(ranges_of(&opt).always_below(b, 34));
    // Both are recorded in the optimised IR, for every backend, beside `tile[0]`'s;
    // `out[0]` indexes a slice, whose length no range knows.
    let unchecked = unchecked_originals(kernel(&module).1, kernel(&opt.module).1);
    assert_eq!(unchecked.len(), 3, "{unchecked:?}");
    assert!(unchecked.contains(&a) && unchecked.contains(&b));
}

#[test]
fn a_stepped_loop_variable_ends_at_its_last_element() {
    let module = lower(
        "fn k(out: &mut [u32]) {
            for r in (0..32).step_by(8) {
                out[r] = 1;
            }
        }",
    );
    let opt = optimise(module.clone());
    let function = kernel(&module).1;
    let Some(Stmt::ForRange { body, .. }) = function.body.stmts.first() else {
        panic!("a for loop first");
    };
    let [index] = assigned_indices_of_block(body)[..] else {
        panic!("one store in the loop");
    };
    assert_eq!(
        ranges_of(&opt).interval(index),
        Some(Interval { min: 0, max: 24 })
    );
}

fn assigned_indices_of_block(block: &crate::ir::Block) -> Vec<Handle<crate::ir::Expr>> {
    block
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Assign { place, .. } => match place.projections.first() {
                Some(Projection::Index(i)) => Some(*i),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[test]
fn a_read_under_a_positive_test_is_above_zero() {
    let module = lower(
        "fn k(out: &mut [u32]) {
            let warp = (thread_idx().x / 32) as usize;
            if warp > 0 {
                out[warp - 1] = 1;
            }
        }",
    );
    let opt = optimise(module.clone());
    let function = kernel(&module).1;
    // `warp - 1` is the one subtraction of the kernel.
    let (sub, _) = function
        .exprs
        .iter()
        .find(|(_, e)| {
            matches!(
                e.kind,
                ExprKind::Binary {
                    op: crate::ir::BinaryOp::Sub,
                    ..
                }
            )
        })
        .expect("warp - 1");
    assert_eq!(
        ranges_of(&opt).interval(sub),
        Some(Interval { min: 0, max: 30 })
    );
}

#[test]
fn a_grid_index_gets_a_launch_proof_as_module_data() {
    let module = lower(
        "fn k(x: &[u32], out: &mut [u32]) {
            let i = grid(1);
            out[i] = x[i] + 1;
        }",
    );
    let opt = optimise(module.clone());
    let (h, function) = kernel(&module);
    let [copy] = opt.launch_proofs.as_slice() else {
        panic!("one proven copy: {:?}", opt.launch_proofs);
    };
    assert_eq!(copy.kernel, h);
    assert_eq!(copy.proof.symbol, "k__launch_proven");
    let grid_max = Bound::Minus(
        Box::new(Bound::Product(
            Box::new(Bound::GridDim(Axis::X)),
            Box::new(Bound::BlockDim(Axis::X)),
        )),
        1,
    );
    // One condition per slice parameter (`x` is 0, `out` 1), both on the grid's size.
    let mut params: Vec<usize> = copy.proof.conditions.iter().map(|c| c.param).collect();
    params.sort();
    assert_eq!(params, [0, 1]);
    for c in &copy.proof.conditions {
        assert_eq!(c.max_index, grid_max);
    }
    // The proven set is exactly the store's index and the load's index: `i` read twice.
    let [store_index] = assigned_indices(function)[..] else {
        panic!("one store");
    };
    assert!(copy.proven.contains(&store_index));
    assert_eq!(copy.proven.len(), 2, "{:?}", copy.proven);
}

#[test]
fn a_guarded_or_cooperative_kernel_gets_no_launch_proof() {
    let guarded = lower(
        "fn k(out: &mut [u32]) {
            let i = grid(1);
            if i < out.len() {
                out[i] = 1;
            }
        }",
    );
    assert!(optimise(guarded).launch_proofs.is_empty());
    let cooperative = lower(
        "fn k(out: &mut [u32]) {
            let i = grid(1);
            out[i] = 1;
            grid_sync();
        }",
    );
    assert!(optimise(cooperative).launch_proofs.is_empty());
    let unchecked = {
        let mut m = lower(
            "fn k(out: &mut [u32]) {
                let i = grid(1);
                out[i] = 1;
            }",
        );
        let (h, _) = kernel(&m);
        m.functions[h].options.bounds_check = false;
        m
    };
    assert!(optimise(unchecked).launch_proofs.is_empty());
}

#[test]
fn the_effect_column_classifies_every_intrinsic_as_the_former_hand_lists_did() {
    use super::effects::{is_collective, is_thread_constant, may_be_duplicated};
    use crate::ir::ClusterOp;
    use crate::ir::Intrinsic::{self, *};
    use crate::proc::intrinsics;
    // The lists the planner, the loop guard and the predicated prefetch spelled out
    // before they read the table (plus `lanemask_lt`, a per-thread constant too, and
    // `dynamic_shared`, which involves no other thread).
    let thread_constant = |i: Intrinsic| {
        matches!(
            i,
            ThreadIdx(_)
                | BlockIdx(_)
                | BlockDim(_)
                | GridDim(_)
                | Grid(_)
                | GridSize(_)
                | LaneId
                | WarpSize
                | LanemaskLt
                // Hopper: a block's place in its cluster is fixed for its run.
                | Cluster(
                    ClusterOp::BlockRank
                        | ClusterOp::Size
                        | ClusterOp::BlockIdx(_)
                        | ClusterOp::Dim(_)
                )
        )
    };
    let collective = |i: Intrinsic| {
        matches!(
            i,
            GridSync
                | SyncWarp
                | Shuffle(_)
                | Vote(_)
                | MatchAny
                | MatchAll
                | WarpReduce(_)
                | ActiveMask
                | SyncThreadsCount
                | SyncThreadsAnd
                | SyncThreadsOr
                // tensor cores
                | Mma(_)
                | Ldmatrix { .. }
                | Stmatrix { .. }
                // Hopper: the cluster barrier waits for the whole cluster.
                | Cluster(ClusterOp::Sync)
        )
    };
    // async copies: each thread's own copies, waits and vector accesses.
    let async_copy = |i: Intrinsic| {
        matches!(
            i,
            CpAsync { .. }
                | CpAsyncCommit
                | CpAsyncWait { .. }
                | CpAsyncWaitAll
                | LoadVec { .. }
                | StoreVec { .. }
        )
    };
    // Hopper: an mbarrier operation is an atomic on the barrier (its fence is a fence).
    let mbarrier =
        |i: Intrinsic| matches!(i, Mbarrier(op) if op != crate::ir::MbarrierOp::FenceInit);
    let duplicable = |i: Intrinsic| {
        thread_constant(i)
            || async_copy(i)
            || mbarrier(i)
            // Hopper: TMA: each thread's own copies and bulk groups, as async copies.
            || matches!(i, Tma(_))
            || matches!(i, Atomic { .. } | Math(_) | DynamicShared)
            // Hopper: wgmma's register packs are values of their operands, as math is.
            || matches!(i, Wgmma(crate::ir::WgmmaOp::PackPair(_)))
            // Hopper: a peer access is the thread's own load or store.
            || matches!(i, Cluster(ClusterOp::PeerRead | ClusterOp::PeerWrite))
    };
    let mut rows = 0;
    for def in intrinsics::all() {
        let i = def.intrinsic;
        rows += 1;
        assert_eq!(is_thread_constant(i), thread_constant(i), "{}", def.name);
        assert_eq!(is_collective(i), collective(i), "{}", def.name);
        assert_eq!(may_be_duplicated(i), duplicable(i), "{}", def.name);
    }
    assert!(rows > 30, "the table has its rows: {rows}");
    let sqrt = Math(crate::ir::MathFn::Sqrt);
    assert!(may_be_duplicated(sqrt) && !is_collective(sqrt) && !is_thread_constant(sqrt));
}

/// Runs kernel `k(out: &mut [u32])` of `module` on the simulator with 8 threads.
fn simulate(module: &Module) -> Result<Vec<u32>, Box<crate::back::sim::Fault>> {
    use crate::back::sim::{run, Arg, Buffer, LaunchShape, Options};
    let buffer = std::sync::Arc::new(Buffer::new(8 * 4));
    let args = [Arg::Slice {
        elem: crate::ir::Type::Scalar(crate::ir::ScalarType::U32),
        buffer: buffer.clone(),
        offset: 0,
        len: 8,
        mutable: true,
    }];
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [8, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(module, "k", &shape, &args, &Options::default()).map_err(Box::new)?;
    let mut bytes = [0u8; 32];
    buffer.read(0, &mut bytes);
    Ok(bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// `table[(thread_idx().x % modulus)]` on a 4-element local array, stored to `out[t]`.
fn table_kernel(modulus: u32) -> Module {
    lower(&format!(
        "fn k(out: &mut [u32]) {{
            let table = [10u32, 11, 12, 13];
            let t = thread_idx().x;
            out[t as usize] = table[(t % {modulus}) as usize];
        }}"
    ))
}

/// The index into `table` (the one index whose place is rooted at a local).
fn table_index(function: &Function) -> Handle<crate::ir::Expr> {
    let mut found = None;
    crate::ir::visit::places_in_block(function, &function.body, &mut |place| {
        if let (crate::ir::PlaceRoot::Local(_), Some(Projection::Index(i))) =
            (place.root, place.projections.first())
        {
            found = Some(*i);
        }
    });
    found.expect("an index into the local table")
}

#[test]
fn the_simulator_runs_the_optimised_module_without_the_elided_check() {
    // `t % 4` is below 4: the check is gone from the IR, and the run is right.
    let opt = optimise(table_kernel(4));
    let function = kernel(&opt.module).1;
    assert!(function.unchecked_indices.contains(&table_index(function)));
    let expected: Vec<u32> = (0..8).map(|t| 10 + t % 4).collect();
    assert_eq!(simulate(&opt.module).expect("runs"), expected);

    // `t % 8` is not: the check stays, and thread 4 panics with Rust's message.
    let opt = optimise(table_kernel(8));
    let function = kernel(&opt.module).1;
    let index = table_index(function);
    assert!(!function.unchecked_indices.contains(&index));
    match simulate(&opt.module).map_err(|f| *f) {
        Err(crate::back::sim::Fault::Panic { message, .. }) => assert_eq!(
            message,
            "index out of bounds: the len is 4 but the index is 4"
        ),
        other => panic!("expected the index panic, got {other:?}"),
    }

    // Had the optimiser wrongly elided it, the simulator would not check it either:
    // the access is reported as a fault, so a fuzz run catches the optimiser's mistake.
    let mut wrong = opt.module.clone();
    let (h, _) = kernel(&wrong);
    wrong.functions[h].unchecked_indices.insert(index);
    match simulate(&wrong).map_err(|f| *f) {
        Err(crate::back::sim::Fault::Panic { .. }) | Ok(_) => {
            panic!("an unchecked out-of-bounds index must fault")
        }
        Err(_) => {}
    }
}
