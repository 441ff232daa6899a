//! What a read's context proves (`opt::range_context`): the kernels' `launch_bounds`
//! bound `thread_idx()`, the `else` of `if wg == 0` has `wg >= 1`, and with both the
//! indices of a warp-specialised consumer's mbarriers and wgmma descriptors are
//! proven (no check, so no panic branch before its key loop); a counter read after it
//! stepped keeps no floor; the writer leaves the proven checks out.

use super::optimise;
use crate::back::nvvm::{write_string, Options};
use crate::front::{lower_sources, tests::source};
use crate::ir::{
    Expr, ExprKind, Function, Handle, Intrinsic, LaunchBounds, MbarrierOp, Module, WgmmaOp,
};
use crate::source::SourceKind;

fn lower(text: &str) -> Module {
    lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"))
}

fn kernel(module: &Module) -> &Function {
    module.kernels().next().expect("one kernel").1
}

/// An FA3 consumer's shape: warpgroup 0 produces, the others consume with their own
/// 64 rows of `tq` (`cw = wg - 1`) and a 2-stage ring of barriers (`3 + st`, `5 + st`,
/// and `extra + st`), compiled with `launch_bounds = max_threads` when given.
fn consumer(max_threads: Option<u32>, extra: u64) -> Module {
    let mut module = lower(&format!(
        "fn k(out: &mut [u64]) {{
            let mut smem = dynamic_shared();
            let tq = smem.take::<bf16>(8192);
            let bars = smem.take::<u64>(7);
            let t = thread_idx().x as usize;
            let wg = t / 128;
            if wg == 0 {{
                if t == 0 {{
                    mbarrier_init(bars, 0, 1);
                    fence_mbarrier_init();
                }}
            }} else {{
                let cw = wg - 1;
                for j in 0..out.len() {{
                    let st = j % 2;
                    while !mbarrier_try_wait_parity(bars, 3 + st, 0) {{}}
                    out[j] = wgmma_descriptor(tq, cw * 4096 + 48, 128, 0, 1024);
                    mbarrier_arrive(bars, 5 + st);
                    mbarrier_arrive(bars, {extra} + st);
                }}
            }}
        }}"
    ));
    let h = module.kernels().next().expect("one kernel").0;
    module.functions[h].options.launch_bounds = max_threads.map(|max_threads| LaunchBounds {
        max_threads,
        min_blocks: 0,
        block_dim: None,
    });
    module
}

/// The index operands of the function's mbarrier operations (in order) and of its
/// wgmma descriptors.
fn intrinsic_indices(function: &Function) -> (Vec<Handle<Expr>>, Vec<Handle<Expr>>) {
    let (mut barriers, mut descriptors) = (Vec::new(), Vec::new());
    for (_, expr) in function.exprs.iter() {
        match &expr.kind {
            ExprKind::Intrinsic {
                intrinsic: Intrinsic::Mbarrier(op),
                args,
            } if *op != MbarrierOp::FenceInit => barriers.push(args[1]),
            ExprKind::Intrinsic {
                intrinsic: Intrinsic::Wgmma(WgmmaOp::Descriptor),
                args,
            } => descriptors.push(args[1]),
            _ => {}
        }
    }
    (barriers, descriptors)
}

#[test]
fn launch_bounds_and_the_consumer_branch_prove_its_barriers_and_descriptors() {
    let module = consumer(Some(384), 5);
    let opt = optimise(module.clone());
    let unchecked = &kernel(&opt.module).unchecked_indices;
    let (barriers, descriptors) = intrinsic_indices(kernel(&module));
    // init(0), try_wait(3 + st), arrive(5 + st) twice.
    assert_eq!((barriers.len(), descriptors.len()), (4, 1));
    for index in barriers.iter().chain(&descriptors) {
        assert!(unchecked.contains(index), "{index:?} left checked");
    }
    // `t < 384`: `wg` is 0..=2, and 1..=2 in the `else`, so `cw` is 0 or 1.
    let at = descriptors[0];
    let ranges = opt.ranges(opt.module.kernels().next().expect("kernel").0);
    let interval = ranges
        .interval(at)
        .expect("the descriptor's index is bounded");
    assert_eq!((interval.min, interval.max), (48, 4096 + 48));
}

#[test]
fn without_launch_bounds_a_thread_index_proves_nothing_past_1024_threads() {
    let module = consumer(None, 5);
    let opt = optimise(module.clone());
    let unchecked = &kernel(&opt.module).unchecked_indices;
    let (barriers, descriptors) = intrinsic_indices(kernel(&module));
    // `cw` reaches 6 with 1024 threads: 6 · 4096 + 48 is past the 8192 elements.
    assert!(!unchecked.contains(&descriptors[0]));
    // The barriers' indices do not depend on the thread.
    assert!(barriers.iter().all(|b| unchecked.contains(b)));
}

#[test]
fn a_barrier_index_that_reaches_the_end_stays_checked() {
    let module = consumer(Some(384), 6);
    let opt = optimise(module.clone());
    let unchecked = &kernel(&opt.module).unchecked_indices;
    let (barriers, _) = intrinsic_indices(kernel(&module));
    // `6 + st` is 7 in odd iterations: one past the 7 barriers.
    let (last, proven) = barriers.split_last().expect("barriers");
    assert!(!unchecked.contains(last));
    assert!(proven.iter().all(|b| unchecked.contains(b)));
}

#[test]
fn only_the_else_of_an_equality_with_zero_has_the_floor() {
    // `x - 1` under `x == 0` would wrap; in the `else` it cannot.
    let module = lower(
        "fn k(out: &mut [u32]) {
            let mut tile = [0u32; 4];
            let x = (thread_idx().x % 4) as usize;
            if x == 0 {
                tile[x] = 1;
            } else {
                tile[x - 1] = 2;
            }
            if x < 2 {
                tile[x] = 3;
            } else {
                tile[x - 2] = 4;
            }
            if x <= 2 {
                tile[x] = 5;
            } else {
                tile[x - 3] = 6;
            }
            out[0] = tile[0];
        }",
    );
    let opt = optimise(module.clone());
    let function = kernel(&module);
    let unchecked = &kernel(&opt.module).unchecked_indices;
    let mut indices = Vec::new();
    crate::ir::visit::places_in_block(function, &function.body, &mut |place| {
        if let Some(crate::ir::Projection::Index(i)) = place.projections.first() {
            if matches!(place.root, crate::ir::PlaceRoot::Local(_)) {
                indices.push(*i);
            }
        }
    });
    // The six stores into `tile` and the read of `tile[0]`.
    assert_eq!(indices.len(), 7, "{indices:?}");
    for i in indices {
        assert!(unchecked.contains(&i), "{i:?} left checked");
    }
}

#[test]
fn a_counter_read_after_it_stepped_keeps_no_floor() {
    // `c > 0` held before the step, but the step may wrap `c` to 0: `c - 1` may wrap.
    let module = lower(
        "fn k(out: &mut [u32]) {
            let mut tile = [0u32; 4];
            let mut c = 0usize;
            for _ in 0..out.len() {
                c = if c == 3 { 0 } else { c + 1 };
                if c > 0 {
                    c = if c == 3 { 0 } else { c + 1 };
                    tile[c - 1] = 1;
                }
            }
            out[0] = tile[0];
        }",
    );
    let opt = optimise(module.clone());
    let function = kernel(&module);
    let unchecked = &kernel(&opt.module).unchecked_indices;
    let mut wrapped = None;
    crate::ir::visit::places_in_block(function, &function.body, &mut |place| {
        if let Some(crate::ir::Projection::Index(i)) = place.projections.first() {
            if matches!(function.exprs[*i].kind, ExprKind::Binary { .. }) {
                wrapped = Some(*i);
            }
        }
    });
    let wrapped = wrapped.expect("the store to tile[c - 1]");
    assert!(!unchecked.contains(&wrapped));
}

/// The index checks the writer wrote (`%inbounds = icmp ult i64 i, len`).
fn index_checks(ir: &str) -> usize {
    let check = |l: &str| l.trim_start().starts_with("%inbounds") && l.contains("= icmp");
    ir.lines().filter(|l| check(l)).count()
}

#[test]
fn the_writer_leaves_out_the_checks_the_consumer_branch_proves() {
    let proven = consumer(Some(384), 5);
    let ir = write_string(&proven, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    // No index check is left (the loop end proves `out[j]`); `take`'s are other checks.
    assert_eq!(index_checks(&ir), 0, "{ir}");
    let unproven = consumer(None, 6);
    let ir = write_string(&unproven, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    // The descriptor's and the last barrier's.
    assert_eq!(index_checks(&ir), 2, "{ir}");
}
