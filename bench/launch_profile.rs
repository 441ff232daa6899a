//! Issue 27's per-launch profile, as `vecadd_launch` prints it: where the host time
//! of a `launch!` goes, stage by stage (kernel_host's `launch::profile`, off during
//! every timed row and switched on only here), and the stages of first launches.
//!
//! Prints `RESULT profile_<variant>_<stage> <ns per launch> corrected_ns=..,launches=..`
//! (corrected: one clock read subtracted, the profile's own cost per stage) and
//! `RESULT first_stage_<when>_<stage> <us> kernel=..` lines for bench/report.py.

use kernel_host::profile::{self, Stage};

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
