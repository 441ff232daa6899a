//! mbarriers as NVVM IR and, with the toolchain configured (`CUDAJIT_NVVM_PATH`,
//! `CUDAJIT_PTXAS`), as PTX for sm_90 and sm_90a: every form, its shared-space check
//! only where the barrier is not visibly a shared array, and the sm_90 gate.

use super::async_copy::ptx_for;
use crate::back::nvvm::{write_string, Options};
use crate::front::lower_sources;
use crate::front::tests::source;
use crate::source::SourceKind;

/// Every operation once, on a shared array and on a slice parameter.
const EVERY_FORM: &str = "fn k(flags: &mut [u64], out: &mut [u64]) {
    let bars = shared_array::<[u64; 2]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        mbarrier_init(bars, 0, 32);
        mbarrier_init(bars, 1, 1);
        fence_mbarrier_init();
    }
    sync_threads();
    let token = mbarrier_arrive(bars, 0);
    if t == 0 {
        let expect = mbarrier_arrive_expect_tx(bars, 1, 256);
        out[1] = expect;
    }
    mbarrier_complete_tx(bars, 1, 8);
    while !mbarrier_try_wait_parity(bars, 0, 0) {}
    while !mbarrier_try_wait_parity(bars, 1, 0) {}
    if mbarrier_try_wait_parity(flags, 0, 1) {
        out[0] = token;
    }
}";

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn every_mbarrier_form_is_written_and_accepted_for_sm_90() {
    let module = lower_sources(&[source(EVERY_FORM, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let ir = &out.text;
    assert_eq!(
        count(ir, "mbarrier.init.shared::cta.b64 [s], $1;"),
        2,
        "{ir}"
    );
    assert_eq!(count(ir, "fence.mbarrier_init.release.cluster;"), 1, "{ir}");
    assert_eq!(
        count(ir, "mbarrier.arrive.shared::cta.b64 $0, [s];"),
        1,
        "{ir}"
    );
    assert_eq!(
        count(ir, "mbarrier.arrive.expect_tx.shared::cta.b64 $0, [s], $2;"),
        1,
        "{ir}"
    );
    assert_eq!(
        count(ir, "mbarrier.complete_tx.shared::cta.b64 [s], $1;"),
        1,
        "{ir}"
    );
    assert_eq!(
        count(ir, "mbarrier.try_wait.parity.shared::cta.b64 p, [s], $2;"),
        3,
        "{ir}"
    );
    // Only the parameter `flags` needs its space checked.
    assert_eq!(count(ir, "isspacep.shared"), 1, "{ir}");
    for arch in ["90", "90a"] {
        let Some(ptx) = ptx_for(ir, arch) else {
            return;
        };
        for form in [
            "mbarrier.init.shared::cta.b64",
            "fence.mbarrier_init.release.cluster",
            "mbarrier.arrive.shared::cta.b64",
            "mbarrier.arrive.expect_tx.shared::cta.b64",
            "mbarrier.complete_tx.shared::cta.b64",
            "mbarrier.try_wait.parity.shared::cta.b64",
        ] {
            assert!(
                ptx.contains(form),
                "{form} missing from the PTX for {arch}\n{ptx}"
            );
        }
    }
}

#[test]
fn an_mbarrier_for_an_older_target_names_the_feature() {
    let module = lower_sources(&[source(EVERY_FORM, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let options = Options {
        arch: Some(80),
        ..Options::default()
    };
    let Err(err) = write_string(&module, &options) else {
        panic!("an sm_80 target accepted mbarriers");
    };
    let text = err.to_string();
    assert!(
        text.contains("`mbarrier.init.shared::cta` needs compute capability 9.0"),
        "{text}"
    );
    assert!(text.contains("compute_80"), "{text}");
}

/// Barriers taken from `dynamic_shared()` into an immutable local are shared memory by
/// construction: no space check, so no branch inside the wait loop; a parameter still
/// has one.
#[test]
fn barriers_taken_from_dynamic_shared_need_no_space_check() {
    let text = "fn k(flags: &mut [u64], out: &mut [u32]) {
        let mut smem = dynamic_shared();
        let bars = smem.take::<u64>(2);
        if thread_idx().x == 0 {
            mbarrier_init(bars, 0, 32);
            mbarrier_init(flags, 0, 32);
            fence_mbarrier_init();
        }
        sync_threads();
        let token = mbarrier_arrive(bars, 0);
        while !mbarrier_try_wait_parity(bars, 0, 0) {}
        out[0] = token as u32;
    }";
    let module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let ir = &out.text;
    assert_eq!(count(ir, "mbarrier.init.shared::cta.b64"), 2, "{ir}");
    assert_eq!(count(ir, "isspacep.shared"), 1, "{ir}");
    if let Some(ptx) = ptx_for(ir, "90") {
        assert!(ptx.contains("mbarrier.try_wait.parity.shared::cta.b64"));
    }
}
