//! Epilogues: the vector stores after a tensor-core loop (pairs of accumulators, each
//! row's behind warp shuffles), run-guarded as copies' sources are, and the simulator
//! running the guarded copy and the checked one against plain Rust.

use super::optimise;
use super::tests_version::u32_slice_arg;
use crate::back::sim::{run, Arg, Fault, LaunchShape, Options};
use crate::front::{lower_sources, tests::source};
use crate::ir::{Block, Expr, ExprKind, Function, Handle, Intrinsic, Module, Stmt, Versioned};
use crate::source::SourceKind;

fn lower(text: &str) -> Module {
    lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"))
}

/// The versioned statements of `block` and of the bodies of its loops.
fn versioned<'b>(block: &'b Block, out: &mut Vec<&'b Versioned>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Versioned(v) => out.push(v),
            Stmt::ForRange { body, .. } => versioned(body, out),
            _ => {}
        }
    }
}

/// The index operands of the `store_vec` calls in `block` (nested blocks included).
fn store_indices(function: &Function, block: &Block) -> Vec<Handle<Expr>> {
    let mut found = Vec::new();
    crate::ir::visit::exprs_in_block(function, block, &mut |_, e| {
        if let ExprKind::Intrinsic {
            intrinsic: Intrinsic::StoreVec { .. },
            args,
        } = &e.kind
        {
            found.push(args[1]);
        }
    });
    found
}

/// The attention epilogue's shape (bench/tc_kernels.rs): each m-tile's row sums reduced
/// over the quad by shuffles, then its rows stored in pairs, 8 tiles of 8 columns. A
/// warp of 32 lanes owns rows `[0, 32)` of `out` (64 columns).
const EPILOGUE: &str = "fn k(out: &mut [u32], sums: &[u32]) {
    let lane = thread_idx().x as usize % 32;
    let g = lane / 4;
    let t = lane % 4;
    for mi in 0..2 {
        let mut total = [0u32; 2];
        for h in 0..2 {
            let mut sum = sums[lane * 4 + mi * 2 + h];
            sum += shfl_xor_sync(0xffff_ffff, sum, 1);
            sum += shfl_xor_sync(0xffff_ffff, sum, 2);
            total[h] = sum;
        }
        let row = (mi * 16 + g) * 64;
        for i in 0..8 {
            let col = i * 8 + 2 * t;
            out.store_vec::<2>(row + col, [total[0] + col as u32, total[0] + 1]);
            out.store_vec::<2>(row + 8 * 64 + col, [total[1] + col as u32, total[1] + 1]);
        }
    }
}";

#[test]
fn an_epilogues_vector_stores_are_decided_by_one_guard_per_run() {
    let opt = optimise(lower(EPILOGUE));
    let function = opt.module.kernels().next().expect("one kernel").1;
    let mut found = Vec::new();
    versioned(&function.body, &mut found);
    let runs: Vec<_> = found
        .iter()
        .filter(|v| !store_indices(function, &v.fast).is_empty())
        .collect();
    let [run] = runs[..] else {
        panic!("one versioned run of stores: {:#?}", function.body);
    };
    // Both stores, in the fast copy without their range checks, in the checked copy
    // with them; the guard compares each index's first and second column tile (8
    // tiles apart by a constant: strided) rather than all 16 stores.
    let fast = store_indices(function, &run.fast);
    let checked = store_indices(function, &run.checked);
    assert_eq!((fast.len(), checked.len()), (2, 2));
    assert!(fast.iter().all(|h| function.unchecked_indices.contains(h)));
    assert!(checked
        .iter()
        .all(|h| !function.unchecked_indices.contains(h)));
    assert!(run.guard.compares());
    assert!(
        run.guard.ops.len() < 40,
        "a strided guard, not one comparison per store: {:?}",
        run.guard.ops
    );
}

/// Runs the epilogue for one warp with `out` of `len` elements, poisoned.
fn simulate(module: &Module, sums: &[u32], len: usize) -> Result<Vec<u32>, Fault> {
    let (out, out_arg) = u32_slice_arg(&vec![0xdead_beef; len], true);
    let (_, sums_arg) = u32_slice_arg(sums, false);
    let args: Vec<Arg> = vec![out_arg, sums_arg];
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(module, "k", &shape, &args, &Options::default())?;
    Ok(super::tests_version::read_u32s(&out, len))
}

/// The epilogue in plain Rust: what `EPILOGUE` stores, the rest left poisoned.
fn expected(sums: &[u32], len: usize) -> Vec<u32> {
    let mut out = vec![0xdead_beef; len];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for mi in 0..2 {
            let quad = |h: usize| -> u32 {
                (0..4)
                    .map(|q| sums[(lane & !3 | q) * 4 + mi * 2 + h])
                    .fold(0u32, u32::wrapping_add)
            };
            let total = [quad(0), quad(1)];
            let row = (mi * 16 + g) * 64;
            for i in 0..8 {
                let col = i * 8 + 2 * t;
                for (h, at) in [(0, row + col), (1, row + 8 * 64 + col)] {
                    out[at] = total[h].wrapping_add(col as u32);
                    out[at + 1] = total[h].wrapping_add(1);
                }
            }
        }
    }
    out
}

#[test]
fn the_simulator_runs_a_guarded_epilogue_fast_and_checked() {
    let opt = optimise(lower(EPILOGUE));
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let sums: Vec<u32> = (0..128)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u32
        })
        .collect();
    // Rows [0, 32) x 64 columns: every guard holds (and one row to spare).
    let len = 33 * 64;
    assert_eq!(
        simulate(&opt.module, &sums, len).expect("runs"),
        expected(&sums, len)
    );
    // One pair short of the last row: the guards of the lanes storing there fail and
    // their checked copies panic at that pair.
    let short = 32 * 64 - 1;
    match simulate(&opt.module, &sums, short) {
        Err(Fault::Panic { message, .. }) => {
            assert!(message.contains(&format!("{short}")), "{message}")
        }
        other => panic!("expected the store's range panic, got {other:?}"),
    }
}
