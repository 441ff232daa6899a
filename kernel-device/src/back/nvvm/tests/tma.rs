//! TMA's NVVM IR forms through libnvvm 13 and ptxas (skipped unless `CUDAJIT_NVVM_PATH`
//! and `CUDAJIT_PTXAS` are set): a kernel taking two tensor maps as grid constants,
//! loading a box into swizzled shared memory on an mbarrier, dumping the tile's raw
//! bytes and storing it back; and the load and store of every rank 1 to 5.
//! With `CUDAJIT_TMA_PTX_OUT=dir` the round-trip kernel's PTX is written there for the
//! GPU run (`bench/tma/`), which holds `proc::tma`'s swizzle to the hardware's.

use super::async_copy::ptx_for;
use crate::back::nvvm::tma::{
    grid_constant, load_box, load_box_multicast, map_param, prefetch, store_box, wait_group,
    COMMIT_GROUP, FENCE_PROXY_ASYNC_SHARED, TENSOR_MAP_TYPE,
};

const HEADER: &str = "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"
target triple = \"nvptx64-nvidia-cuda\"
";

/// The kernel annotation of `kernel` (of function type `signature`), its map
/// parameters (1-based `maps`) as grid constants, and the NVVM IR version.
fn annotations(signature: &str, kernel: &str, maps: &[usize]) -> String {
    let (annotation, list) = grid_constant(&format!("{signature} @{kernel}"), maps, 2);
    format!(
        "!nvvm.annotations = !{{!0, !1}}
!0 = !{{{signature} @{kernel}, !\"kernel\", i32 1}}
!1 = {annotation}
{list}
!nvvmir.version = !{{!3}}
!3 = !{{i32 2, i32 0, i32 3, i32 1}}
"
    )
}

/// `tma_box(src, dst, dump, c0, c1, tx_bytes, bytes)`: one block of 128 threads; thread
/// 0 loads the box at `(c0, c1)` of `src` into a 1024-aligned shared tile, expecting
/// `tx_bytes` on the mbarrier, all threads copy the tile's first `bytes` raw (swizzled)
/// bytes to `dump` (more than `tx_bytes` where the box's rows are padded to the span),
/// thread 0 stores the tile to `dst`.
fn round_trip_module() -> String {
    let signature = "void (%cudajit.tensor_map*, %cudajit.tensor_map*, i8*, i32, i32, i32, i32)*";
    format!(
        "{HEADER}{TENSOR_MAP_TYPE}
@tile = internal addrspace(3) global [16384 x i8] undef, align 1024
@bar = internal addrspace(3) global i64 undef, align 8
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define void @tma_box({}, {}, i8* %dump, i32 %c0, i32 %c1, i32 %tx_bytes, i32 %bytes) {{
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %srcmap = ptrtoint %cudajit.tensor_map* %src to i64
  %dstmap = ptrtoint %cudajit.tensor_map* %dst to i64
  %tile64 = ptrtoint [16384 x i8] addrspace(3)* @tile to i64
  %tile = trunc i64 %tile64 to i32
  %bar64 = ptrtoint i64 addrspace(3)* @bar to i64
  %bar = trunc i64 %bar64 to i32
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %load, label %joined
load:
  {}
  call void asm sideeffect \"mbarrier.init.shared::cta.b64 [$0], 1;\", \"r,~{{memory}}\"(i32 %bar)
  {FENCE_PROXY_ASYNC_SHARED}
  %token = call i64 asm sideeffect \"mbarrier.arrive.expect_tx.shared::cta.b64 $0, [$1], $2;\", \"=l,r,r,~{{memory}}\"(i32 %bar, i32 %tx_bytes)
  {}
  br label %wait
wait:
  %done = call i32 asm sideeffect \"{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }}\", \"=r,r,r,~{{memory}}\"(i32 %bar, i32 0)
  %ready = icmp ne i32 %done, 0
  br i1 %ready, label %joined, label %wait
joined:
  call void @llvm.nvvm.barrier0()
  %any = icmp ult i32 %t, %bytes
  br i1 %any, label %copy, label %copied
copy:
  %i = phi i32 [ %t, %joined ], [ %next, %copy ]
  %from = getelementptr [16384 x i8], [16384 x i8] addrspace(3)* @tile, i32 0, i32 %i
  %byte = load i8, i8 addrspace(3)* %from
  %to = getelementptr i8, i8* %dump, i32 %i
  store i8 %byte, i8* %to
  %next = add i32 %i, 128
  %more = icmp ult i32 %next, %bytes
  br i1 %more, label %copy, label %copied
copied:
  call void @llvm.nvvm.barrier0()
  br i1 %lead, label %store, label %exit
store:
  {FENCE_PROXY_ASYNC_SHARED}
  {}
  {COMMIT_GROUP}
  {}
  br label %exit
exit:
  ret void
}}

{}",
        map_param("src"),
        map_param("dst"),
        prefetch("%srcmap"),
        load_box("%tile", "%srcmap", &["%c0", "%c1"], "%bar"),
        store_box("%dstmap", &["%c0", "%c1"], "%tile"),
        wait_group(0, true),
        annotations(signature, "tma_box", &[1, 2]),
    )
}

/// A load and a store of each rank 1 to 5, coordinates the thread's index.
fn every_rank_module() -> String {
    let mut body = String::new();
    for rank in 1..=5 {
        let coords = vec!["%t"; rank];
        body += &format!(
            "  {}\n  {}\n  {}\n",
            load_box("%tile", "%mapaddr", &coords, "%bar"),
            load_box_multicast("%tile", "%mapaddr", &coords, "%bar", "%mask"),
            store_box("%mapaddr", &coords, "%tile")
        );
    }
    let signature = "void (%cudajit.tensor_map*)*";
    format!(
        "{HEADER}{TENSOR_MAP_TYPE}
@tile = internal addrspace(3) global [1024 x i8] undef, align 1024
@bar = internal addrspace(3) global i64 undef, align 8
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define void @ranks({}) {{
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %mapaddr = ptrtoint %cudajit.tensor_map* %map to i64
  %tile64 = ptrtoint [1024 x i8] addrspace(3)* @tile to i64
  %tile = trunc i64 %tile64 to i32
  %bar64 = ptrtoint i64 addrspace(3)* @bar to i64
  %bar = trunc i64 %bar64 to i32
  %mask = trunc i32 %t to i16
{body}  {COMMIT_GROUP}
  {}
  ret void
}}
{}",
        map_param("map"),
        wait_group(0, false),
        annotations(signature, "ranks", &[1]),
    )
}

/// That `ptx` holds each instruction of a 2-D round trip: prefetch, load, store, the
/// bulk group's commit and wait, the proxy fence.
pub(super) fn assert_round_trip_instructions(ptx: &str) {
    for instruction in [
        "prefetch.tensormap [",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [",
        "cp.async.bulk.commit_group;",
        "cp.async.bulk.wait_group.read 0;",
        "fence.proxy.async.shared::cta;",
    ] {
        assert!(ptx.contains(instruction), "{instruction}: {ptx}");
    }
}

#[test]
fn a_map_parameter_is_a_grid_constant_and_every_copy_is_accepted() {
    let module = round_trip_module();
    for arch in ["90", "90a"] {
        let Some(ptx) = ptx_for(&module, arch) else {
            return;
        };
        // The maps stay in parameter space: their own addresses reach the copies.
        assert!(
            ptx.contains(".param .align 64 .b8 tma_box_param_0[128]"),
            "{ptx}"
        );
        assert!(
            ptx.contains(".param .align 64 .b8 tma_box_param_1[128]"),
            "{ptx}"
        );
        assert_eq!(ptx.matches("cvta.param.u64").count(), 2, "{ptx}");
        assert!(
            !ptx.contains("__local_depot"),
            "a map was copied to local memory: {ptx}"
        );
        assert_round_trip_instructions(&ptx);
        if let Some(dir) = std::env::var_os("CUDAJIT_TMA_PTX_OUT") {
            std::fs::write(
                std::path::Path::new(&dir).join(format!("tma_box_{arch}.ptx")),
                &ptx,
            )
            .unwrap();
        }
    }
    let Some(ptx) = ptx_for(&every_rank_module(), "90a") else {
        return;
    };
    for rank in 1..=5 {
        assert!(
            ptx.contains(&format!("cp.async.bulk.tensor.{rank}d.shared::cluster")),
            "{ptx}"
        );
        assert!(
            ptx.contains(&format!("cp.async.bulk.tensor.{rank}d.global.shared::cta")),
            "{ptx}"
        );
        let multicast = format!("cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [");
        assert!(ptx.contains(&multicast), "{ptx}");
    }
    assert!(ptx.contains("cp.async.bulk.wait_group 0;"), "{ptx}");
}

#[test]
fn without_the_annotation_the_map_would_be_copied_to_local_memory() {
    // Why `grid_constant` is written: the same module with the list naming no
    // parameter hands the copies a local copy's address.
    let module = round_trip_module().replace("!2 = !{i32 1, i32 2}", "!2 = !{i32 7}");
    let Some(ptx) = ptx_for(&module, "90a") else {
        return;
    };
    assert!(ptx.contains("__local_depot"), "{ptx}");
}

/// Two tiles a swizzled copy could land in, and an ordinary array between them.
const ALIGNED_TILES: &str = "fn k(out: &mut [u16]) {
    let small = shared_array::<[u16; 8]>();
    let a = shared_array_aligned::<[u16; 4096], 1024>();
    let b = shared_array_aligned::<[[u16; 64]; 4], 256>();
    let t = thread_idx().x as usize;
    small[t % 8] = t as u16;
    a[t] = t as u16;
    b[t % 4][t % 64] = t as u16;
    sync_threads();
    out[t] = a[4095 - t] + b[3 - t % 4][63 - t % 64] + small[7 - t % 8];
}";

#[test]
fn an_aligned_shared_array_is_declared_at_its_alignment() {
    use crate::back::nvvm::{write_string, Options};
    use crate::front::lower_sources;
    use crate::front::tests::source;
    use crate::source::SourceKind;
    let module = lower_sources(&[source(ALIGNED_TILES, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let aligns: Vec<u32> = module.globals.iter().map(|(_, g)| g.align).collect();
    assert_eq!(aligns, [16, 1024, 256]);
    let ir = write_string(&module, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    for (ty, align) in [
        ("[8 x i16]", 16),
        ("[4096 x i16]", 1024),
        ("[4 x [64 x i16]]", 256),
    ] {
        assert!(
            ir.contains(&format!("global {ty} undef, align {align}")),
            "{ty} at {align}: {ir}"
        );
    }
    let Some(ptx) = ptx_for(&ir, "90") else {
        return;
    };
    assert!(ptx.contains(".shared .align 1024 .b8"), "{ptx}");
    assert!(ptx.contains(".shared .align 256 .b8"), "{ptx}");
}

#[test]
fn an_alignment_is_a_power_of_two_literal_from_16_to_1024() {
    use crate::front::lower_sources;
    use crate::front::tests::source;
    use crate::source::SourceKind;
    for (turbofish, message) in [
        (
            "[u16; 64], 100",
            "a power of two from 16 to 1024 bytes, not 100",
        ),
        (
            "[u16; 64], 2048",
            "a power of two from 16 to 1024 bytes, not 2048",
        ),
        (
            "[u16; 64], 8",
            "a power of two from 16 to 1024 bytes, not 8",
        ),
        ("[u16; 64], ALIGN", "must be an integer literal"),
        ("[u16; 64]", "exactly two generic arguments"),
    ] {
        let text = format!(
            "fn k(out: &mut [u16]) {{ let a = shared_array_aligned::<{turbofish}>(); a[0] = 1; out[0] = a[0]; }}"
        );
        let errors = lower_sources(&[source(&text, SourceKind::Kernel, 1)])
            .err()
            .unwrap_or_else(|| panic!("`{turbofish}` was accepted"));
        let all = format!("{errors:?}");
        assert!(all.contains(message), "`{turbofish}`: {all}");
    }
    // The array type may be inferred from the use, as `shared_array()`'s.
    let text = "fn k(out: &mut [u16]) { let a: &mut [u16; 64] = shared_array_aligned::<_, 128>(); a[0] = 1; out[0] = a[0]; }";
    let module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let (_, global) = module.globals.iter().next().unwrap();
    assert_eq!(global.align, 128);
}
