//! What libnvvm spends on a first call's compile (issue 27), measured without a GPU:
//! the bench's `vecadd` checked and unchecked, lowered as the JIT lowers it (the
//! launch-proven copy cut out, line tables on), each compiled several times by the
//! process's libnvvm; the medians are printed, and with `CUDAJIT_COMPILE_COST_DIR` set
//! the IR and PTX are written there for reading. Ignored in plain runs (a measurement,
//! not a check): `cargo test -p kernel-host --lib compile_cost -- --ignored --nocapture`.

use std::time::Instant;

use kernel_device::back::nvvm::Options;
use kernel_device::ir::FunctionOptions;
use kernel_device::source::{FnSource, SourceKind};

use crate::compile::deferred::without_kernel;
use crate::compile::{libnvvm, lower};

const VECADD: &str = "fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}";

const fn vecadd(name: &'static str, bounds_check: bool) -> FnSource {
    FnSource {
        name,
        kind: SourceKind::Kernel,
        text: VECADD,
        file: "bench/vecadd_launch.rs",
        line: 74,
        options: FunctionOptions {
            bounds_check,
            ..FunctionOptions::DEFAULT
        },
        deps: &[],
        consts: &[],
        structs: &[],
        instance: &[],
    }
}

pub(super) static CHECKED: FnSource = vecadd("vecadd", true);
static UNCHECKED: FnSource = vecadd("vecadd", false);

/// Compiles per variant: the median is reported.
const ROUNDS: usize = 15;

fn median_ms(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// The IR the JIT compiles for `source` on compute_90: lowered for the installed
/// libnvvm, without the launch-proven copy when it has one.
fn jit_ir(nvvm: &libnvvm::Compiler, source: &'static FnSource) -> String {
    let unit = lower::lower(
        source,
        &Options {
            ir_version: nvvm.ir_version(),
            arch: Some(90),
            debug: lower::debug_level(source),
            ..Options::default()
        },
    )
    .expect("lowers");
    match &unit.launch_proof {
        Some(proof) => without_kernel(&unit.nvvm_ir, &proof.symbol).expect("the writer's layout"),
        None => unit.nvvm_ir,
    }
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn libnvvm_time_of_the_bench_vecadd() {
    let Ok(nvvm) = libnvvm::shared() else {
        eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
        return;
    };
    let dump = std::env::var_os("CUDAJIT_COMPILE_COST_DIR").map(std::path::PathBuf::from);
    for (name, source) in [("checked", &CHECKED), ("unchecked", &UNCHECKED)] {
        let front = Instant::now();
        let ir = jit_ir(&nvvm, source);
        let front_ms = front.elapsed().as_secs_f64() * 1e3;
        let options = lower::runtime_options(source, "compute_90".into());
        let mut ptx = String::new();
        let samples: Vec<f64> = (0..ROUNDS)
            .map(|_| {
                let t = Instant::now();
                ptx = nvvm.compile(&ir, &options).expect("compiles");
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        println!(
            "COMPILE_COST {name}: libnvvm median {:.2} ms (min {:.2}), front end {front_ms:.2} ms, IR {} lines, PTX {} lines",
            median_ms(samples.clone()),
            samples.iter().copied().fold(f64::INFINITY, f64::min),
            ir.lines().count(),
            ptx.lines().count()
        );
        if let Some(dir) = &dump {
            std::fs::create_dir_all(dir).expect("dump folder");
            std::fs::write(dir.join(format!("vecadd_{name}.ll")), &ir).expect("writes");
            std::fs::write(dir.join(format!("vecadd_{name}.ptx")), &ptx).expect("writes");
        }
    }
}
