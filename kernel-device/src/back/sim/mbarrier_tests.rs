//! mbarrier pipelines on the simulator: a producer warp and a consumer warp through a
//! two-stage ring on random inputs against a CPU reference (outputs poisoned), a
//! transaction-count phase, and each protocol bug planted, each reported with its
//! sites where the fixed kernel is silent.

use super::super::tests::{buffer_of, module, read_back, shape, slice, Rng};
use super::super::{run, Fault, Options};
use crate::ir::ScalarType;

/// Warp 0 produces `input[it * 32 + lane] * 3 + 1` into stage `it % 2`, warp 1 copies it
/// to `out`; `full[s]` says a stage is written, `empty[s]` that it was read. The
/// `$..$` holes are where the planted bugs go.
const PIPELINE: &str = r#"
#[kernel]
fn k(input: &mut [u32], out: &mut [u32]) {
    let full = shared_array::<[u64; 2]>();
    let empty = shared_array::<[u64; 2]>();
    let stage = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    if $INIT$ {
        mbarrier_init(full, 0, $COUNT$);
        mbarrier_init(full, 1, 32);
        mbarrier_init(empty, 0, 32);
        $EMPTY1$
        fence_mbarrier_init();
    }
    sync_threads();
    let lane = t % 32;
    let rounds = input.len() / 32;
    if t < 32 {
        for it in 0..rounds {
            let s = it % 2;
            if it >= 2 {
                let parity = ((it / 2 - 1) % 2) as u32;
                while !mbarrier_try_wait_parity(empty, s, parity) {}
            }
            stage[s * 32 + lane] = input[it * 32 + lane] * 3 + 1;
            mbarrier_arrive(full, s);
        }
    } else {
        for it in 0..rounds {
            let s = it % 2;
            let parity = ($PARITY$ % 2) as u32;
            while !mbarrier_try_wait_parity(full, s, parity) {}
            out[it * 32 + lane] = stage[s * 32 + lane];
            mbarrier_arrive(empty, s);
        }
    }
}
"#;

const FIXED: [(&str, &str); 4] = [
    ("$INIT$", "t == 0"),
    ("$COUNT$", "32"),
    ("$EMPTY1$", "mbarrier_init(empty, 1, 32);"),
    ("$PARITY$", "(it / 2)"),
];

fn pipeline(planted: (&str, &str)) -> String {
    FIXED
        .iter()
        .fold(PIPELINE.to_string(), |text, &(hole, fill)| {
            let fill = if hole == planted.0 { planted.1 } else { fill };
            text.replace(hole, fill)
        })
}

fn run_pipeline(text: &str, input: &[u32], seed: u64) -> Result<Vec<u32>, Fault> {
    run_threads(text, input, seed, 64)
}

fn run_threads(text: &str, input: &[u32], seed: u64, threads: u32) -> Result<Vec<u32>, Fault> {
    let m = module(text, "k");
    let (bi, bo) = (
        buffer_of(input),
        buffer_of(&vec![0xDEAD_BEEFu32; input.len()]),
    );
    let options = Options {
        seed,
        ..Options::default()
    };
    run(
        &m,
        "k",
        &shape(1, threads),
        &[
            slice(ScalarType::U32, &bi, input.len(), true),
            slice(ScalarType::U32, &bo, input.len(), true),
        ],
        &options,
    )?;
    Ok(read_back(&bo, input.len()))
}

fn random_input(rng: &mut Rng, rounds: usize) -> Vec<u32> {
    (0..rounds * 32).map(|_| rng.below(1 << 20)).collect()
}

#[test]
fn the_fixed_pipeline_is_silent_and_matches_the_cpu() {
    let mut rng = Rng::fresh();
    let input = random_input(&mut rng, 7);
    let want: Vec<u32> = input.iter().map(|x| x * 3 + 1).collect();
    for seed in [1, 2, 3] {
        let got = run_pipeline(&pipeline(("", "")), &input, seed)
            .unwrap_or_else(|f| panic!("seed {seed}, input seed {}: {f}", rng.seed));
        assert_eq!(got, want, "input seed {}", rng.seed);
    }
}

#[test]
fn a_wait_on_the_wrong_parity_reads_the_stage_unordered() {
    let mut rng = Rng::fresh();
    let input = random_input(&mut rng, 4);
    // Waiting for parity 1 first: `try_wait` says done at once (phase 0 is current).
    let text = pipeline(("$PARITY$", "(it / 2 + 1)"));
    let err = run_pipeline(&text, &input, 1).expect_err("the early read is reported");
    assert!(
        matches!(
            err,
            Fault::Race { .. } | Fault::ReadBeforeWrite { .. } | Fault::UninitialisedRead { .. }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("`stage`"), "{err}");
}

/// Always parity 0: where the consumer runs ahead it reads a stage the producer is
/// rewriting (a race on `stage`), where the producer does it waits for a phase that
/// comes only after one it needs itself (a hang, reported with the barriers).
#[test]
fn a_missing_phase_flip_is_reported_in_every_schedule() {
    let mut rng = Rng::fresh();
    let input = random_input(&mut rng, 6);
    for seed in [1, 2, 3, 4] {
        let err = run_pipeline(&pipeline(("$PARITY$", "0")), &input, seed)
            .expect_err("the reuse is reported");
        let text = err.to_string();
        match err {
            Fault::Race { .. } | Fault::ReadBeforeWrite { .. } => {
                assert!(text.contains("`stage`"), "{text}")
            }
            Fault::Deadlock(_) => assert!(text.contains("mbarrier shared `full`[0]"), "{text}"),
            other => panic!("seed {seed}: {other}"),
        }
    }
}

#[test]
fn a_phase_that_never_completes_is_a_report_not_a_hang() {
    let mut rng = Rng::fresh();
    let input = random_input(&mut rng, 4);
    // One arrival more than the producer warp makes: `full[0]` never completes.
    let err =
        run_pipeline(&pipeline(("$COUNT$", "33")), &input, 1).expect_err("the hang is reported");
    let text = err.to_string();
    assert!(matches!(err, Fault::Deadlock(_)), "{text}");
    assert!(text.contains("mbarrier shared `full`[0]"), "{text}");
    assert!(text.contains("32 of 33 arrivals"), "{text}");
    assert!(text.contains("initialised at sim.rs:9:"), "{text}");
}

#[test]
fn an_arrival_on_an_uninitialised_barrier_is_reported() {
    let mut rng = Rng::fresh();
    let input = random_input(&mut rng, 4);
    let err = run_pipeline(&pipeline(("$EMPTY1$", "")), &input, 1).expect_err("reported");
    let Fault::Mbarrier {
        location, problem, ..
    } = &err
    else {
        panic!("{err}");
    };
    assert!(location.contains("`empty`[1]"), "{err}");
    assert!(problem.contains("no thread initialised"), "{err}");
}

#[test]
fn an_init_by_two_threads_names_both() {
    let mut rng = Rng::fresh();
    let input = random_input(&mut rng, 2);
    let err = run_pipeline(&pipeline(("$INIT$", "t % 32 == 0")), &input, 1).expect_err("reported");
    let text = err.to_string();
    assert!(matches!(err, Fault::Mbarrier { .. }), "{text}");
    assert!(text.contains("already initialised at sim.rs:9:"), "{text}");
    assert!(
        text.contains("thread (0, 0, 0)") && text.contains("thread (32, 0, 0)"),
        "{text}"
    );
}

/// One arrival with 128 expected bytes; each of 32 threads writes its element and
/// completes 4 bytes; everyone waits for the phase, then reads a neighbour's element.
const TX: &str = r#"
#[kernel]
fn k(input: &mut [u32], out: &mut [u32]) {
    let bar = shared_array::<[u64; 1]>();
    let data = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        mbarrier_init(bar, 0, 1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        mbarrier_arrive_expect_tx(bar, 0, $BYTES$);
    }
    data[t] = input[t] + 7;
    mbarrier_complete_tx(bar, 0, 4);
    if t != 0 {
        while !mbarrier_try_wait_parity(bar, 0, 0) {}
        out[t] = data[(t + 1) % 32];
    }
}
"#;

#[test]
fn transaction_bytes_complete_a_phase_and_a_shortfall_is_reported_at_exit() {
    let mut rng = Rng::fresh();
    let input = random_input(&mut rng, 1);
    let got =
        run_threads(&TX.replace("$BYTES$", "128"), &input, 1, 32).unwrap_or_else(|f| panic!("{f}"));
    for t in 1..32 {
        assert_eq!(
            got[t],
            input[(t + 1) % 32] + 7,
            "thread {t}, seed {}",
            rng.seed
        );
    }
    assert_eq!(got[0], 0xDEAD_BEEF);
    // Off by four bytes: the waiters never see the phase complete.
    let err = run_threads(&TX.replace("$BYTES$", "132"), &input, 1, 32).expect_err("reported");
    let text = err.to_string();
    assert!(matches!(err, Fault::Deadlock(_)), "{text}");
    assert!(text.contains("4 transaction bytes outstanding"), "{text}");
    // Without waiters the block ends with the bytes outstanding: named at the expect.
    let no_wait = TX
        .replace("$BYTES$", "132")
        .replace("while !mbarrier_try_wait_parity(bar, 0, 0) {}", "");
    let no_wait = no_wait.replace("out[t] = data[(t + 1) % 32];", "out[t] = 1;");
    let err = run_threads(&no_wait, &input, 1, 32).expect_err("reported");
    let text = err.to_string();
    assert!(matches!(err, Fault::Mbarrier { .. }), "{text}");
    assert!(
        text.contains("4 transaction bytes of phase 0 never completed"),
        "{text}"
    );
    assert!(text.contains("at sim.rs:13:"), "{text}");
}

/// A warp-specialised consumer's barrier `bars[wg + k]` (`launch_bounds = 384`: `wg` is
/// 1 or 2 in the `else` of `wg == 0`): with k = 4 the optimiser proves it and the
/// kernel runs; with k = 5 warpgroup 2 names `bars[7]`, and its check still fires.
#[test]
fn a_consumer_barrier_past_the_end_still_panics_where_the_proof_fails() {
    let text = |k: u32| {
        format!(
            "#[kernel(launch_bounds = 384)]
            fn k(out: &mut [u32]) {{
                let mut smem = dynamic_shared();
                let bars = smem.take::<u64>(7);
                let t = thread_idx().x as usize;
                let wg = t / 128;
                if wg == 0 {{
                    out[t] = 0;
                }} else {{
                    if t % 128 == 0 {{
                        mbarrier_init(bars, wg + {k}, 1);
                    }}
                    out[t] = wg as u32;
                }}
            }}"
        )
    };
    let launch = |k: u32| {
        let m = module(&text(k), "k");
        let out = buffer_of(&vec![0xDEAD_BEEFu32; 384]);
        let shape = super::super::LaunchShape {
            dynamic_shared_bytes: 7 * 8,
            ..shape(1, 384)
        };
        let args = [slice(ScalarType::U32, &out, 384, true)];
        let result = run(&m, "k", &shape, &args, &Options::default());
        (result, read_back::<u32>(&out, 384))
    };
    let (proven, out) = launch(4);
    proven.unwrap_or_else(|f| panic!("bars[5..=6] failed: {f}"));
    assert!(out.iter().enumerate().all(|(t, &v)| v == (t / 128) as u32));
    let (past, out) = launch(5);
    match past {
        Err(Fault::Panic {
            message, thread, ..
        }) => {
            assert!(message.contains("index out of bounds"), "{message}");
            assert!(
                message.contains("the len is 7 but the index is 7"),
                "{message}"
            );
            assert_eq!(thread.thread[0], 256, "{thread}");
        }
        other => panic!("expected warpgroup 2's index panic, got {other:?}"),
    }
    // The panicking thread ends; the others run on and write.
    assert!((0..384).all(|t| t == 256 || out[t] == (t / 128) as u32));
    assert_eq!(out[256], 0xDEAD_BEEF);
}
