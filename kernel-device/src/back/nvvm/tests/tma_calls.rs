//! The kernel-side TMA calls as NVVM IR and, with the toolchain configured
//! (`CUDAJIT_NVVM_PATH`, `CUDAJIT_PTXAS`), as PTX for sm_90 and sm_90a: a map parameter
//! kept in parameter space (never copied to local memory), every copy form with its
//! checks, and the sm_90 gate.

use super::async_copy::ptx_for;
use crate::back::nvvm::{write_string, Options};
use crate::front::lower_sources;
use crate::front::tests::source;
use crate::source::SourceKind;

/// A load, a store, a prefetch and the bulk groups through two 2-D maps (the store
/// through a `&TensorMapMut`).
const ROUND_TRIP: &str = "fn k(src: &TensorMap<bf16, 2>, n: u32, dst: &TensorMapMut<bf16, 2>) {
    let tile = shared_array_aligned::<[bf16; 4096], 1024>();
    let bars = shared_array::<[u64; 1]>();
    let t = thread_idx().x;
    let at = [(block_idx().y * 64) as i32, (block_idx().x * 64) as i32];
    if t == 0 {
        mbarrier_init(bars, 0, 1);
        fence_mbarrier_init();
        tma_prefetch(src);
        mbarrier_arrive_expect_tx(bars, 0, 8192);
        tma_load(src, tile, at, bars, 0);
    }
    sync_threads();
    while !mbarrier_try_wait_parity(bars, 0, 0) {}
    if t < n {
        fence_proxy_async();
        tma_store(dst, at, tile);
        bulk_commit_group();
        bulk_wait_group_read::<0>();
    }
}";

fn written(text: &str, arch: Option<u32>) -> Result<String, String> {
    let module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let options = Options {
        arch,
        ..Options::default()
    };
    write_string(&module, &options)
        .map(|out| out.text)
        .map_err(|e| e.to_string())
}

#[test]
fn a_map_parameter_and_every_copy_reach_ptx_as_grid_constants() {
    let ir = written(ROUND_TRIP, None).unwrap();
    assert!(
        ir.contains("%cudajit.tensor_map = type { [16 x i64] }"),
        "{ir}"
    );
    assert!(
        ir.contains("%cudajit.tensor_map* byval align 64 %src, i64 %src.tile"),
        "{ir}"
    );
    // The maps are LLVM parameters 1 and 4 (the tile words and `n` between).
    assert!(ir.contains("!\"grid_constant\""), "{ir}");
    assert!(ir.contains(" = !{i32 1, i32 4}"), "{ir}");
    for arch in ["90", "90a"] {
        let Some(ptx) = ptx_for(&ir, arch) else {
            return;
        };
        assert!(ptx.contains(".param .align 64 .b8 k_param_0[128]"), "{ptx}");
        assert!(ptx.contains(".param .align 64 .b8 k_param_3[128]"), "{ptx}");
        assert!(
            !ptx.contains("__local_depot"),
            "a map was copied to local memory: {ptx}"
        );
        super::tma::assert_round_trip_instructions(&ptx);
    }
}

#[test]
fn a_copy_in_a_kernel_built_for_sm_80_is_an_error_naming_the_need() {
    let prefetch = "fn k(src: &TensorMap<f32, 1>) { tma_prefetch(src); }";
    let err = written(prefetch, Some(80)).expect_err("no TMA before sm_90");
    assert!(
        err.contains("`cp.async.bulk.tensor` needs compute capability 9.0 or later; the target is compute_80"),
        "{err}"
    );
    assert!(written(prefetch, Some(90)).is_ok());
}

/// Each block of a cluster multicasts its slice (8 rows of 64 `u32`) of a 2-D map to
/// every block of its mask, as `tests/gpu/tma_multicast.rs` does.
const MULTICAST: &str = "fn k(src: &TensorMap<u32, 2>, mask: u16) {
    let tile = shared_array_aligned::<[u32; 2048], 128>();
    let bars = shared_array::<[u64; 1]>();
    let rank = cluster_block_rank() as usize;
    if thread_idx().x == 0 {
        mbarrier_init(bars, 0, 1);
        fence_mbarrier_init();
        mbarrier_arrive_expect_tx(bars, 0, 8192);
    }
    cluster_sync();
    if thread_idx().x == 0 {
        let at = [(rank * 8) as i32, 0];
        tma_load_multicast(src, &mut tile[rank * 512..], at, bars, 0, mask);
    }
    while !mbarrier_try_wait_parity(bars, 0, 0) {}
    cluster_sync();
}";

#[test]
fn a_multicast_load_checks_its_mask_and_reaches_ptx_for_sm_90a_only() {
    let ir = written(MULTICAST, None).unwrap();
    // The mask is checked against the cluster's size before the copy.
    assert!(ir.contains("mov.u32 $0, %cluster_nctarank;"), "{ir}");
    assert!(ir.contains("= lshr i32 %tma.mask32"), "{ir}");
    assert!(ir.contains("br i1 %tma.mask.ok, label"), "{ir}");
    assert!(
        ir.contains(
            ".multicast::cluster [$0], [$1, {$2, $3}], [$4], $5;\", \"r,l,r,r,r,h,~{memory}\""
        ),
        "{ir}"
    );
    // sm_90a only: a known target of another architecture is an error naming it.
    let err = written(MULTICAST, Some(100)).expect_err("multicast is sm_90a's");
    assert!(
        err.contains("multicast") && err.contains("sm_90a") && err.contains("compute_100"),
        "{err}"
    );
    assert!(written(MULTICAST, Some(90)).is_ok());
    let module = lower_sources(&[source(MULTICAST, SourceKind::Kernel, 1)]).unwrap();
    let needs = crate::proc::tma_intrinsics::module_needs(&module);
    assert_eq!(
        crate::proc::target::choose_arch(&needs, (9, 0)).unwrap(),
        "compute_90a"
    );
    assert!(crate::proc::target::choose_arch(&needs, (10, 0)).is_err());
    let Some(ptx) = ptx_for(&ir, "90a") else {
        return;
    };
    assert!(
        ptx.contains("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster ["),
        "{ptx}"
    );
}

/// A producer's stage ring as the FA3 kernel carves it: the tiles and barriers taken
/// from `dynamic_shared()`, each copy into a sub-slice of a stage. `BINDING` is `let`
/// or `let mut` for the tiles.
fn taken_ring(binding: &str) -> String {
    format!(
        "fn k(src: &TensorMap<bf16, 2>) {{
    let mut smem = dynamic_shared();
    {binding} tiles = smem.take::<bf16>(2 * 4096);
    let bars = smem.take::<u64>(2);
    if thread_idx().x == 0 {{
        for j in 0..4 {{
            let s = j % 2;
            mbarrier_arrive_expect_tx(bars, s, 8192);
            tma_load(src, &mut tiles[s * 4096..s * 4096 + 4096], [(j * 64) as i32, 0], bars, s);
        }}
    }}
}}"
    )
}

#[test]
fn a_copy_into_a_taken_stage_tests_no_space_while_an_unknown_tile_still_does() {
    // An immutable take and its sub-slices are shared memory: no `isspacep` at all.
    let ir = written(&taken_ring("let"), None).unwrap();
    assert!(!ir.contains("isspacep"), "{ir}");
    assert!(ir.contains("cp.async.bulk.tensor.2d"), "{ir}");
    // A `let mut` tile binding could be re-pointed anywhere: its copy keeps the test
    // (the barriers, still an immutable take, need none).
    let ir = written(&taken_ring("let mut"), None).unwrap();
    assert_eq!(ir.matches("isspacep.shared").count(), 1, "{ir}");
}
