//! Small targets for NVIDIA's tools (`bench/debug_tools.sh` runs them on the GPU):
//! each mode launches one kernel whose Rust lines the tools must name.
//!
//! * `oob`: an out-of-bounds write in a `boundscheck = false` kernel
//!   (compute-sanitizer memcheck names the line marked OOB-WRITE);
//! * `race`: threads of a block write one shared-memory word with no barrier between
//!   (compute-sanitizer racecheck names the line marked SHARED-RACE);
//! * `stencil`: a SIMT-suite-style stencil, for `ncu --page source`;
//! * `gdb`: a kernel with `#[kernel(debug = true)]` for cuda-gdb to stop in at the
//!   line marked GDB-STOP and print the local `scaled`;
//! * `print`: a few threads print a line (the text checked by the script);
//! * `inspect`: the stencil's PTX and SASS (`cudajit::inspect`) with the Rust lines
//!   interleaved (no GPU needed; SASS where `nvdisasm` is installed).

use cudajit::prelude::*;

#[kernel(boundscheck = false)]
fn write_past(out: &mut [f32]) {
    let i = grid(1);
    out[i + (1 << 30)] = 1.0; // OOB-WRITE
}

#[kernel]
fn shared_race(out: &mut [u32]) {
    let tile = shared_array::<[u32; 32]>();
    let t = thread_idx().x;
    tile[0] = t; // SHARED-RACE
    sync_threads();
    out[t as usize] = tile[0];
}

#[kernel]
fn stencil(a: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i > 0 && i + 1 < a.len() {
        out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]; // STENCIL
    }
}

#[kernel(debug = true)]
fn scale_for_gdb(a: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < a.len() {
        let scaled = a[i] * 3.0;
        out[i] = scaled + 1.0; // GDB-STOP
    }
}

#[kernel]
fn say_hello(n: &[u32]) {
    let i = grid(1);
    if i < n.len() {
        println!(
            "hello from thread {i}: {:>4} {:.2}",
            n[i],
            n[i] as f32 / 3.0
        );
    }
}

fn main() -> cudajit::Result<()> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    match mode.as_str() {
        "oob" => {
            let mut out = vec![0.0f32; 256];
            // SAFETY: none; the point is the out-of-bounds write the tools must find.
            let result = unsafe { launch!(write_past[1, 32](&mut out)) };
            println!("oob launch: {result:?}");
        }
        "race" => {
            let mut out = vec![0u32; 32];
            launch!(shared_race[1, 32](&mut out))?;
            println!("race: out[0..4] = {:?}", &out[..4]);
        }
        "stencil" => {
            let n = 1 << 22;
            let a: Vec<f32> = (0..n).map(|i| (i % 97) as f32).collect();
            let mut out = vec![0.0f32; n];
            launch!(stencil[n.div_ceil(256), 256](&a, &mut out))?;
            println!("stencil: out[1] = {}", out[1]);
        }
        "gdb" => {
            let a: Vec<f32> = (0..64).map(|i| i as f32).collect();
            let mut out = vec![0.0f32; 64];
            launch!(scale_for_gdb[1, 64](&a, &mut out))?;
            println!("gdb: out[5] = {}", out[5]);
        }
        "print" => {
            let n: Vec<u32> = (0..8).map(|i| i * 7).collect();
            cudajit::print::set_print_order(cudajit::print::PrintOrder::Thread);
            launch!(say_hello[1, 8](&n))?;
        }
        "inspect" => {
            let inspection = cudajit::inspect::inspect(stencil::source(), "compute_90")?;
            println!("{}", inspection.ptx_with_rust_lines());
            match inspection.sass_with_rust_lines() {
                Some(sass) => println!("{sass}"),
                None => println!("// no SASS: nvdisasm (or ptxas) not found"),
            }
        }
        _ => {
            eprintln!("usage: debug_targets oob|race|stencil|gdb|print|inspect");
            std::process::exit(2);
        }
    }
    Ok(())
}
