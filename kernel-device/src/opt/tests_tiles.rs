//! Check elision into dynamic-shared tiles (`opt::elide`): the length of a `take` is
//! its count, so swizzled tile indices of a pipeline stage (`(kt % 3) * 256 + ..`, with
//! `kt` a loop variable of unknown end) are proven, and an index that can pass the end
//! is not.

use super::optimise;
use crate::front::{lower_sources, tests::source};
use crate::ir::visit::{exprs_in_block, places_in_block};
use crate::ir::{Expr, ExprKind, Function, Handle, Intrinsic, Module, Projection};
use crate::source::SourceKind;

fn tile_kernel() -> Module {
    let mut module = lower_sources(&[source(
        "fn k(a: &[f32], out: &mut [f32], n: usize) {
            let mut smem = dynamic_shared();
            let tile = smem.take::<f32>(3 * 256);
            let tid = thread_idx().x as usize;
            let lane = tid % 32;
            for kt in 0..n {
                let stage = (kt % 3) * 256;
                tile[stage + (((lane >> 2) ^ (tid & 7)) << 2) + (tid >> 5)] = 1.0;
                tile[stage + tid * 2 + 1] = 2.0;
                tile[stage + tid * 3] = 3.0;
                cp_async_cg::<16>(tile, stage + tid * 2, a, tid);
                cp_async_cg::<16>(tile, stage + 252, a, tid);
            }
            out[0] = 0.0;
        }",
        SourceKind::Kernel,
        1,
    )])
    .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let (h, _) = module.kernels().next().expect("one kernel");
    module.functions[h].options.launch_bounds = Some(crate::ir::LaunchBounds {
        max_threads: 128,
        min_blocks: 0,
        block_dim: Some([128, 1, 1]),
    });
    module
}

/// The first index of every indexed place of `function`, in the order of the source.
fn place_indices(function: &Function) -> Vec<Handle<Expr>> {
    let mut found = Vec::new();
    places_in_block(function, &function.body, &mut |place| {
        if let Some(Projection::Index(i)) = place.projections.first() {
            found.push(*i);
        }
    });
    found.sort_by_key(|h| h.index());
    found
}

/// The destination offsets of the `cp_async` calls, in the order of the source.
fn copy_offsets(function: &Function) -> Vec<Handle<Expr>> {
    let mut found = Vec::new();
    exprs_in_block(function, &function.body, &mut |_, e| {
        if let ExprKind::Intrinsic {
            intrinsic: Intrinsic::CpAsync { .. },
            args,
        } = &e.kind
        {
            found.push(args[1]);
        }
    });
    found.sort_by_key(|h| h.index());
    found
}

#[test]
fn indices_into_a_taken_tile_are_proven_against_its_count() {
    let module = tile_kernel();
    let original = module.kernels().next().unwrap().1.clone();
    let opt = optimise(module);
    let optimised = opt.module.kernels().next().unwrap().1;
    let unchecked = |h: &Handle<Expr>| optimised.unchecked_indices.contains(h);
    // Stage 512 at most: the swizzle reaches 512 + 7 · 4 + 3, `2 tid + 1` 512 + 255,
    // both below 768; `3 tid` reaches 512 + 381, past the end. `out[0]` indexes a
    // parameter, whose length no range knows.
    let [swizzled, doubled, tripled, out] = place_indices(&original)[..] else {
        panic!("four indexed places: {:?}", place_indices(&original));
    };
    assert!(unchecked(&swizzled) && unchecked(&doubled));
    assert!(!unchecked(&tripled) && !unchecked(&out));
    // A 16-byte copy covers 4 elements: `2 tid` ends at 512 + 254 + 3 = 769, past the
    // end (checked); `stage + 252` ends at 767 (proven).
    let [wide, last] = copy_offsets(&original)[..] else {
        panic!("two copies");
    };
    assert!(!unchecked(&wide) && unchecked(&last));
}
