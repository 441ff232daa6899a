//! Issue 25's timing bar: a launch of 2^20 threads that each print one line, against
//! the same launch without printing plus the host's formatting time. Each repetition
//! (11, interleaved) times, host wall clock, a launch on device arrays followed by
//! `Stream::synchronize` (which drains and formats the print buffer):
//!
//! * `silent`: the kernel without its `println!`;
//! * `print`: the kernel with it (records appended on the GPU, copied back, decoded,
//!   rendered by `kernel_device::ir::format`, captured into a `String` rather than
//!   written to the terminal);
//! * `host_format`: decoding and rendering 2^20 records of the same format on the host
//!   alone (no GPU), what the bar adds to `silent`.
//!
//! Prints `RESULT <name> <median_us> <key=value,...>` lines and the bar's ratio
//! `print / (silent + host_format)` (bar: ≤ 2). Exits 0 with `skipped: <reason>` where
//! there is no GPU.

mod stats;

use std::error::Error as StdError;
use std::time::Instant;

use cudajit::prelude::*;
use cudajit::print::{self, PrintOrder};
use kernel_device::ir::format::record::{self, RecordLayout, RecordOrigin, ScalarValue};
use kernel_device::ir::format::{
    parse, render_output, Destination, ExplicitArguments, FormatTable, PrintFormat, Value,
};
use kernel_device::ir::{ScalarType, Type};
use stats::median;

type BenchResult<T> = Result<T, Box<dyn StdError>>;

const N: usize = 1 << 20;
const BLOCK: usize = 256;
const REPS: usize = 11;
/// The line each thread prints: the same as the kernel's `println!`.
const FORMAT: &str = "thread {} value {}\n";

#[kernel]
fn bump_and_print(a: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < a.len() {
        out[i] = a[i] + 1.0;
        println!("thread {} value {}", i, out[i]);
    }
}

#[kernel]
fn bump(a: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < a.len() {
        out[i] = a[i] + 1.0;
    }
}

fn main() {
    let Some(device) = stats::gpu_device() else {
        return;
    };
    if let Err(e) = run(&device) {
        eprintln!("print: error: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> BenchResult<()> {
    // 2^20 records of 24 + 16 bytes, with room to spare.
    print::set_print_buffer_bytes(64 << 20);
    print::set_print_order(PrintOrder::Arrival);
    let stream = device.new_stream()?;
    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.25).collect();
    let da = device.to_device(&a)?;
    let mut out = device.zeros::<f32>(N)?;
    let blocks = N.div_ceil(BLOCK);
    // Warm up: compile, load, first drain; check the text once.
    launch!(bump[blocks, BLOCK, stream](&da, &mut out))?;
    let (result, text) = print::capture(|| {
        launch!(bump_and_print[blocks, BLOCK, stream](&da, &mut out))?;
        stream.synchronize()
    });
    result?;
    check_lines(&text.stdout, &a)?;
    if text.dropped_records != 0 {
        return Err(format!("{} records dropped", text.dropped_records).into());
    }
    let (mut silent, mut printing, mut host) = (Vec::new(), Vec::new(), Vec::new());
    let buffer = host_buffer(&a);
    for _ in 0..REPS {
        let start = Instant::now();
        launch!(bump[blocks, BLOCK, stream](&da, &mut out))?;
        stream.synchronize()?;
        silent.push(start.elapsed().as_secs_f64() * 1e6);

        let start = Instant::now();
        let (result, text) = print::capture(|| {
            launch!(bump_and_print[blocks, BLOCK, stream](&da, &mut out))?;
            stream.synchronize()
        });
        result?;
        printing.push(start.elapsed().as_secs_f64() * 1e6);
        if text.stdout.len() < N {
            return Err("a repetition printed less than a line per thread".into());
        }

        let start = Instant::now();
        let rendered = render_host(&buffer.0, &buffer.1)?;
        host.push(start.elapsed().as_secs_f64() * 1e6);
        std::hint::black_box(rendered);
    }
    let (silent, printing, host) = (median(silent), median(printing), median(host));
    println!("RESULT print_silent {silent:.1} threads={N}");
    println!("RESULT print_printing {printing:.1} threads={N}");
    println!("RESULT print_host_format {host:.1} records={N}");
    let ratio = printing / (silent + host);
    println!(
        "RESULT print_bar_ratio {ratio:.3} bar=2.0,met={}",
        if ratio <= 2.0 { "yes" } else { "no" }
    );
    Ok(())
}

/// Every thread's line, in some order: sorted by thread they must be `format!`'s.
fn check_lines(stdout: &str, a: &[f32]) -> BenchResult<()> {
    let mut lines: Vec<&str> = stdout.lines().collect();
    if lines.len() != N {
        return Err(format!("{} lines printed, expected {N}", lines.len()).into());
    }
    let thread = |l: &str| -> usize {
        l.split(' ')
            .nth(1)
            .and_then(|t| t.parse().ok())
            .unwrap_or(usize::MAX)
    };
    lines.sort_by_key(|l| thread(l));
    for (i, line) in lines.iter().enumerate() {
        let want = format!("thread {} value {}", i, a[i] + 1.0);
        if *line != want {
            return Err(format!("line of thread {i}: {line:?}, expected {want:?}").into());
        }
    }
    Ok(())
}

/// A buffer of 2^20 records of the kernel's format, written on the host.
fn host_buffer(a: &[f32]) -> (FormatTable, Vec<u8>) {
    let program = parse(
        FORMAT,
        &ExplicitArguments {
            positional: 2,
            named: Vec::new(),
        },
    )
    .expect("the format parses");
    let types = vec![
        Type::Scalar(ScalarType::Usize),
        Type::Scalar(ScalarType::F32),
    ];
    let layout = RecordLayout::new(&types).expect("printable");
    let mut table = FormatTable::default();
    table.push(PrintFormat {
        program,
        argument_types: types,
        destination: Destination::Stdout,
    });
    let mut buffer = vec![0u8; record::BUFFER_HEADER_BYTES + N * layout.record_bytes() as usize];
    record::reset_buffer(&mut buffer).expect("header");
    for (i, x) in a.iter().enumerate() {
        let values = [
            Value::Scalar(ScalarValue::Usize(i as u64)),
            Value::Scalar(ScalarValue::F32(x + 1.0)),
        ];
        let origin = RecordOrigin {
            block: (i / BLOCK) as u64,
            thread: (i % BLOCK) as u32,
        };
        record::append_record(&mut buffer, 0, origin, &layout, &values);
    }
    (table, buffer)
}

fn render_host(table: &FormatTable, buffer: &[u8]) -> BenchResult<String> {
    let decoded = record::decode(buffer, |id| table.argument_types(id))?;
    Ok(render_output(table, decoded, PrintOrder::Arrival)?.stdout)
}
