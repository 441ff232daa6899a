//! Issue 27's per-launch profile, as `vecadd_launch` prints it: where the host time
//! of a `launch!` goes, stage by stage (kernel_host's `launch::profile`, off during
//! every timed row and switched on only here), the stages of first launches, and the
//! paired comparison the launch bars are judged on ([`paired_rounds`]: `launch!` and
//! the bare `cuLaunchKernel` on the same stream, interleaved round by round).
//!
//! Prints `RESULT profile_<variant>_<stage> <ns per launch> corrected_ns=..,launches=..`
//! (corrected: one clock read subtracted, the profile's own cost per stage) and
//! `RESULT first_stage_<when>_<stage> <us> kernel=..` lines for bench/report.py.

use std::time::Instant;

use kernel_host::profile::{self, Stage};

type Step<'a> = &'a mut dyn FnMut() -> Result<(), Box<dyn std::error::Error>>;

/// Host time per launch of `launch!` (`ours`) against the bare launch it is held to
/// (`bare`), in `rounds` alternating rounds (`ours` first in even rounds, `bare` first
/// in odd ones) of `launches` launches each. Only the launch loop is timed: each
/// round's wait for the GPU (`sync_*`, after the loop) is not, and a round is short
/// enough that the driver's queue never fills, so the figures are the host's work and
/// not the GPU's pace. Drift of the machine over the run weighs on both sides of each
/// round alike; the ratio is taken round by round. Prints
/// `RESULT pair_<name> <median ratio> ours_us=..,bare_us=..,min_ratio=..,..`
/// (`ours_us`/`bare_us`: medians; `min_ratio`: the ratio of the two sides' fastest
/// rounds) and returns the median ratio.
pub fn paired_rounds(
    name: &str,
    bare_name: &str,
    launches: usize,
    rounds: usize,
    ours: (Step<'_>, Step<'_>),
    bare: (Step<'_>, Step<'_>),
) -> Result<f64, Box<dyn std::error::Error>> {
    let (launch_ours, sync_ours) = ours;
    let (launch_bare, sync_bare) = bare;
    let time = |launch: Step<'_>, sync: Step<'_>| time_round(launches, launch, sync);
    // Warm-up: both paths' code and data in the caches, the proven copy chosen.
    for _ in 0..3 {
        time(launch_ours, sync_ours)?;
        time(launch_bare, sync_bare)?;
    }
    let (mut ours_us, mut bare_us, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (o, b) = if round % 2 == 0 {
            let o = time(launch_ours, sync_ours)?;
            (o, time(launch_bare, sync_bare)?)
        } else {
            let b = time(launch_bare, sync_bare)?;
            (time(launch_ours, sync_ours)?, b)
        };
        ours_us.push(o);
        bare_us.push(b);
        ratios.push(o / b);
    }
    let least = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let ratio = crate::stats::median(ratios.clone());
    println!(
        "RESULT pair_{name} {ratio:.4} vs={bare_name},ours_us={:.3},bare_us={:.3},min_ratio={:.4},\
         q1_ratio={:.4},q3_ratio={:.4},launches={launches},rounds={rounds}",
        crate::stats::median(ours_us.clone()),
        crate::stats::median(bare_us.clone()),
        least(&ours_us) / least(&bare_us),
        quantile(&ratios, 0.25),
        quantile(&ratios, 0.75),
    );
    Ok(ratio)
}

/// Host time per launch of `launches` launches (the loop alone), then `sync` untimed.
fn time_round(
    launches: usize,
    launch: Step<'_>,
    sync: Step<'_>,
) -> Result<f64, Box<dyn std::error::Error>> {
    let start = Instant::now();
    for _ in 0..launches {
        launch()?;
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / launches as f64;
    sync()?;
    Ok(us)
}

/// The `q` quantile of `samples` (nearest rank).
fn quantile(samples: &[f64], q: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(rank).copied().unwrap_or(f64::NAN)
}

/// Runs `launch` `launches` times with the profile on (after as many unprofiled
/// warm-up launches), then `sync`, and prints the mean per stage.
pub fn profile_launches(
    variant: &str,
    launches: usize,
    mut launch: impl FnMut() -> Result<(), Box<dyn std::error::Error>>,
    sync: impl Fn() -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(), Box<dyn std::error::Error>> {
    for _ in 0..launches {
        launch()?;
    }
    sync()?;
    let clock = profile::clock_cost_ns();
    let _ = profile::take_launch_profile();
    profile::enable(true);
    let run = (|| {
        for _ in 0..launches {
            launch()?;
        }
        sync()
    })();
    profile::enable(false);
    run?;
    let taken = profile::take_launch_profile();
    if taken.launches != launches as u64 {
        return Err(format!(
            "profile of {variant}: {} launches recorded, {launches} made",
            taken.launches
        )
        .into());
    }
    let mut total = 0.0;
    for (stage, ns) in &taken.stages {
        let corrected = (ns - clock).max(0.0);
        total += corrected;
        println!(
            "RESULT profile_{variant}_{} {ns:.1} corrected_ns={corrected:.1},clock_ns={clock:.1},launches={}",
            stage.name(),
            taken.launches
        );
    }
    println!(
        "RESULT profile_{variant}_total {total:.1} stages={},clock_ns={clock:.1}",
        Stage::ALL.len()
    );
    Ok(())
}

/// Prints the stages of the first launches profiled so far (`when` names the
/// situation: cold or disk cache, checked or not): the first launch's as `when`, any
/// later one's as `when_then`, `when_then2`...
pub fn print_first_launches(when: &str) {
    for (i, first) in profile::take_first_launches().iter().enumerate() {
        let when = match i {
            0 => when.to_string(),
            1 => format!("{when}_then"),
            _ => format!("{when}_then{i}"),
        };
        // A stage a launch passed twice (libnvvm's load is marked where it happens)
        // is reported once, summed, in the order it first appeared.
        let mut summed: Vec<(&str, f64)> = Vec::new();
        for (stage, us) in &first.stages {
            match summed.iter_mut().find(|(name, _)| *name == stage.name()) {
                Some((_, total)) => *total += us,
                None => summed.push((stage.name(), *us)),
            }
        }
        for (stage, us) in summed {
            println!(
                "RESULT first_stage_{when}_{stage} {us:.1} kernel={}",
                first.kernel
            );
        }
    }
}

/// `vecadd_launch --cpu-host-path`: the launch path's own work on this machine's CPU,
/// without a GPU (kernel_host's `profile::host_path_bench`), warm. Prints a table and
/// `RESULT cpu_host_<row> <ns> stage=..` lines.
pub fn cpu_host_path(
    source: &'static cudajit::__private::FnSource,
) -> Result<(), Box<dyn std::error::Error>> {
    let rows = profile::host_path_bench(source, 20_000, 11)?;
    println!(
        "Launch path on the CPU alone, ns per launch (least of 11 rounds; cold: after a \
         {} KiB sweep)",
        profile::EVICT_BYTES >> 10
    );
    println!("  {:<46} {:>8} {:>8}", "", "warm", "cold");
    for (i, row) in rows.iter().enumerate() {
        println!(
            "  {:<46} {:>8.1} {:>8.1}",
            row.stage, row.warm_ns, row.cold_ns
        );
        let stage = row.stage.replace([' ', ','], "_");
        println!(
            "RESULT cpu_host_{i} {:.1} stage={stage},cold_ns={:.1}",
            row.warm_ns, row.cold_ns
        );
    }
    Ok(())
}

/// The launch path rebuilt one stage at a time around real `cuLaunchKernel`s
/// (kernel_host's `launch_ladder`): what each stage adds to the bare launch on the
/// GPU host, driver-call effects included. Prints `RESULT ladder_<i> <ns> rung=..`
/// and `RESULT ladder_bare <us per launch>`.
pub fn launch_ladder<'a, const N: usize>(
    pending: &dyn Fn() -> profile::LadderLaunch<'a, N>,
    whole: &dyn Fn() -> cudajit::Result<()>,
    stream: &cudajit::Stream,
    config: cudajit::LaunchConfig<'_>,
) -> Result<(), Box<dyn std::error::Error>> {
    let (bare_us, extra) = profile::launch_ladder(pending, whole, stream, config, 500, 31)?;
    println!("Launch path stage by stage around cuLaunchKernel, ns over the bare launch ({bare_us:.3} us)");
    println!("RESULT ladder_bare {bare_us:.4} launches=500,rounds=31");
    for (i, (rung, ns)) in profile::LADDER_RUNGS.iter().zip(&extra).enumerate().skip(1) {
        println!("  {rung:<52} {ns:>8.1}");
        println!(
            "RESULT ladder_{i} {ns:.1} rung={}",
            rung.trim_start_matches("+ ")
                .replace([',', ':', '!'], "")
                .replace(' ', "_")
        );
    }
    Ok(())
}
