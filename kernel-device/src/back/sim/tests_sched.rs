//! Barriers with exited threads (they count as arrived, as on the GPU), schedules
//! that interleave warps and blocks at every point where they can communicate, and
//! spinning that ends (or ends as an `Err`, never a hang).

use super::*;

fn run_u32(
    src: &str,
    grid: u32,
    block: u32,
    init: &[u32],
    options: &Options,
) -> Result<Vec<u32>, Fault> {
    let m = module(src, "k");
    let b = buffer_of(init);
    run(
        &m,
        "k",
        &shape(grid, block),
        &[slice(ScalarType::U32, &b, init.len(), true)],
        options,
    )?;
    Ok(read_back(&b, init.len()))
}

fn seeds(schedules: u32) -> impl Iterator<Item = Options> {
    (0..3u64).map(move |seed| Options {
        seed: seed * 1000 + 7,
        schedules,
        ..Options::default()
    })
}

/// Numba's 1-D heat equation (cooperative groups example): threads past the end
/// return, the others step with `grid_sync()`.
const HEAT: &str = r#"
#[kernel]
fn k(buf: &mut [u32]) {
    let i = grid(1);
    let n = 200;
    if i >= n {
        return;
    }
    for step in 0..4u32 {
        let left = if i > 0 { buf[(step as usize % 2) * n + i - 1] } else { 0 };
        let me = buf[(step as usize % 2) * n + i];
        let out = ((step as usize + 1) % 2) * n + i;
        buf[out] = me + left / 2;
        grid_sync();
    }
}
"#;

#[test]
fn threads_that_return_before_grid_sync_count_as_arrived() {
    let init: Vec<u32> = (0..400).map(|i| if i < 200 { i * 3 } else { 0 }).collect();
    let mut want = init.clone();
    for step in 0..4 {
        let (from, to) = ((step % 2) * 200, ((step + 1) % 2) * 200);
        for i in 0..200 {
            let left = if i > 0 { want[from + i - 1] } else { 0 };
            want[to + i] = want[from + i] + left / 2;
        }
    }
    for schedules in [1, 8] {
        for o in seeds(schedules) {
            let got = run_u32(HEAT, 4, 64, &init, &o).unwrap();
            assert_eq!(got, want);
        }
    }
    let off = Options {
        detect: false,
        ..Options::default()
    };
    assert_eq!(run_u32(HEAT, 4, 64, &init, &off).unwrap(), want);
}

#[test]
fn whole_warps_returning_before_sync_threads_count_as_arrived() {
    let src = "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t >= 70 { return; } sync_threads(); a[t] = 1; }";
    for o in seeds(4) {
        let got = run_u32(src, 1, 128, &[0; 128], &o).unwrap();
        assert!((0..128).all(|t| got[t] == u32::from(t < 70)));
    }
}

#[test]
fn a_live_warp_skipping_a_barrier_is_still_divergence() {
    let src = "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t < 32 { sync_threads(); } a[t] = 1; }";
    for o in seeds(4) {
        let err = run_u32(src, 1, 64, &[0; 64], &o).unwrap_err();
        let Fault::BarrierDivergence { waiting, other, .. } = &err else {
            panic!("{err}");
        };
        assert!(waiting.thread[0] < 32 && other.thread[0] >= 32, "{err}");
    }
    // Live threads at two different barriers.
    let src = "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t < 32 { sync_threads(); } else { sync_threads(); } a[t] = 1; }";
    let err = run_u32(src, 1, 64, &[0; 64], &Options::default()).unwrap_err();
    assert!(
        matches!(&err, Fault::BarrierDivergence { elsewhere, .. } if elsewhere.starts_with("waits at")),
        "{err}"
    );
}

#[test]
fn a_block_whose_threads_all_return_before_grid_sync_is_reported() {
    let src = "#[kernel] fn k(a: &mut [u32]) { if block_idx().x == 2 { return; } grid_sync(); a[grid(1)] = 1; }";
    let err = run_u32(src, 4, 32, &[0; 128], &Options::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("block (2, 0, 0) thread (0, 0, 0) exited"),
        "{text}"
    );
}
