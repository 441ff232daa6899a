//! The simulator's speed (issue 8's bar: a 2^20-element vecadd and a 2^16-element
//! shared-memory reduction each under 2 s on the 2-core CI machine, detection on,
//! using every core). Prints simulated threads per second; checks the results.
//!
//! `cargo run --release -p kernel-device --example sim_bench [-- --workers N] [--no-detect] [--schedules N] [--vecadd-only] [--repeat N]`
//!
//! `--repeat N` runs the vecadd N times and reports each run and the best (a shared
//! machine's other load only ever slows a run down).
//!
//! Besides the wall-clock rate (which other processes on a shared machine slow down), each
//! line gives the process's CPU time for the launch and the rate per CPU-second.

use std::sync::Arc;
use std::time::Instant;

use kernel_device::back::sim::{self, Arg, Buffer, LaunchShape, Options};
use kernel_device::ir::ScalarType;
use kernel_device::offline;

const KERNELS: &str = r#"
#[kernel]
fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

#[kernel]
fn reduce(input: &[f32], partial: &mut [f32]) {
    let tile = shared_array::<[f32; 256]>();
    let t = thread_idx().x as usize;
    let i = grid(1);
    tile[t] = if i < input.len() { input[i] } else { 0.0 };
    sync_threads();
    let mut s = block_dim().x as usize / 2;
    while s > 0 {
        if t < s {
            tile[t] += tile[t + s];
        }
        sync_threads();
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x as usize] = tile[0];
    }
}
"#;

fn module(kernel: &str) -> kernel_device::ir::Module {
    let found = offline::scan(KERNELS, "sim_bench.rs").expect("parses");
    let k = found
        .iter()
        .position(|f| f.item.sig.ident == kernel)
        .expect("kernel");
    kernel_device::lower_unit(offline::kernel_source(k, &found).expect("unit")).expect("lowers")
}

fn buffer(values: &[f32]) -> Arc<Buffer> {
    let b = Buffer::new(values.len() * 4);
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    b.write(0, &bytes);
    Arc::new(b)
}

fn read(b: &Buffer, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; n * 4];
    b.read(0, &mut bytes);
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn arg(b: &Arc<Buffer>, len: usize, mutable: bool) -> Arg {
    Arg::Slice {
        elem: kernel_device::ir::Type::Scalar(ScalarType::F32),
        buffer: b.clone(),
        offset: 0,
        len,
        mutable,
    }
}

/// The process's CPU time (user and system, every thread) in seconds, from
/// `/proc/self/stat` (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command's closing parenthesis; utime and stime are the 14th and
    // 15th fields of the line, in clock ticks (100 per second on Linux).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |k: usize| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let workers = args
        .iter()
        .position(|a| a == "--workers")
        .and_then(|k| args.get(k + 1))
        .and_then(|w| w.parse().ok())
        .unwrap_or(0);
    let schedules = args
        .iter()
        .position(|a| a == "--schedules")
        .and_then(|k| args.get(k + 1))
        .and_then(|w| w.parse().ok())
        .unwrap_or(1);
    let repeat: usize = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|k| args.get(k + 1))
        .and_then(|w| w.parse().ok())
        .unwrap_or(1);
    let options = Options {
        detect: !args.iter().any(|a| a == "--no-detect"),
        workers,
        schedules,
        ..Options::default()
    };
    println!(
        "simulator bench: detection {}, {schedules} schedule(s), workers {}",
        if options.detect { "on" } else { "off" },
        if workers == 0 {
            "all cores".to_string()
        } else {
            workers.to_string()
        }
    );

    let n = 1usize << 20;
    let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 777) as f32 - 300.0).collect();
    let (ba, bb, bc) = (buffer(&a), buffer(&b), buffer(&vec![f32::NAN; n]));
    let m = module("vecadd");
    let shape = LaunchShape {
        grid: [(n / 256) as u32, 1, 1],
        block: [256, 1, 1],
        dynamic_shared_bytes: 0,
    };
    let (mut best_wall, mut best_cpu) = (0f64, 0f64);
    for _ in 0..repeat.max(1) {
        let (started, cpu) = (Instant::now(), cpu_seconds());
        let report = sim::run(
            &m,
            "vecadd",
            &shape,
            &[arg(&ba, n, false), arg(&bb, n, false), arg(&bc, n, true)],
            &options,
        )
        .expect("vecadd runs");
        let secs = started.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu;
        let c = read(&bc, n);
        assert!((0..n).all(|i| c[i] == a[i] + b[i]), "vecadd result");
        let (wall_rate, cpu_rate) = (
            report.threads as f64 / secs / 1e6,
            report.threads as f64 / cpu.max(0.01) / 1e6,
        );
        (best_wall, best_cpu) = (best_wall.max(wall_rate), best_cpu.max(cpu_rate));
        println!(
            "vecadd 2^20: {secs:.3} s, {wall_rate:.2} M simulated threads/s; {cpu:.2} CPU s, {cpu_rate:.2} M threads per CPU-second"
        );
        bc.write(0, &vec![0xffu8; n * 4]);
    }
    if repeat > 1 {
        println!(
            "vecadd 2^20, best of {repeat}: {best_wall:.2} M simulated threads/s; {best_cpu:.2} M threads per CPU-second"
        );
    }
    if args.iter().any(|a| a == "--vecadd-only") {
        return;
    }

    let n = 1usize << 16;
    let input: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25).collect();
    let blocks = n / 256;
    let (bi, bp) = (buffer(&input), buffer(&vec![f32::NAN; blocks]));
    let m = module("reduce");
    let shape = LaunchShape {
        grid: [blocks as u32, 1, 1],
        block: [256, 1, 1],
        dynamic_shared_bytes: 0,
    };
    let (started, cpu) = (Instant::now(), cpu_seconds());
    let report = sim::run(
        &m,
        "reduce",
        &shape,
        &[arg(&bi, n, false), arg(&bp, blocks, true)],
        &options,
    )
    .expect("reduce runs");
    let secs = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let partial = read(&bp, blocks);
    for (k, got) in partial.iter().enumerate() {
        let want: f64 = input[k * 256..(k + 1) * 256]
            .iter()
            .map(|&x| f64::from(x))
            .sum();
        assert!(
            (f64::from(*got) - want).abs() <= 1e-3 * want.abs().max(1.0),
            "block {k}: {got} vs {want}"
        );
    }
    println!(
        "reduce 2^16 (shared memory, 8 barriers per block): {secs:.3} s, {:.2} M simulated threads/s; {cpu:.2} CPU s",
        report.threads as f64 / secs / 1e6
    );
}
