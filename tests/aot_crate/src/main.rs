//! A crate that uses cudajit as a user would, with its kernels compiled ahead of time
//! by its build.rs. Runs each kernel against a CPU reference on fresh random inputs,
//! then reports, by the runtime's own lookup, which kernels a launch finds embedded
//! PTX for (one line each: `embedded <kernel> <arch> <bytes> sass <sm_XY> <bytes>`, or
//! `sass none` where no machine code runs on the device, or `jit <kernel>`), and
//! whether this process could load libnvvm. On a GPU with libnvvm hidden, the launches
//! themselves prove the embedded PTX loads without it.

mod kernels;

use cudajit::prelude::*;
use kernels::{axpy2, stride_fill};

cudajit::embed_device_code!();
cudajit::instantiate!(axpy2::<f32>, axpy2::<f64>);

#[kernel]
fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

/// A fresh seed each run (printed, so a failure can be replayed with `AOT_CRATE_SEED`).
fn seed() -> u64 {
    std::env::var("AOT_CRATE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// splitmix64, mapped to [-1, 1).
fn random_vec(state: &mut u64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = *state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

fn check(name: &str, got: &[f64], want: &[f64], tolerance: f64) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > tolerance * (1.0 + w.abs()) {
            return Err(format!("{name}: element {i} is {g}, want {w}"));
        }
    }
    println!("ok {name}");
    Ok(())
}

fn run() -> Result<(), String> {
    // Each kernel's first launch by stage, checked below on a GPU.
    cudajit::profile::enable(true);
    let seed = seed();
    println!("seed {seed}");
    let mut state = seed;
    let n = 1000 + (seed % 61) as usize;
    let (a, b) = (random_vec(&mut state, n), random_vec(&mut state, n));
    let scale = random_vec(&mut state, 1)[0];

    let (a32, b32): (Vec<f32>, Vec<f32>) = (
        a.iter().map(|&v| v as f32).collect(),
        b.iter().map(|&v| v as f32).collect(),
    );
    let blocks = n.div_ceil(128) as u32;
    let mut c = vec![f32::NAN; n];
    launch!(vecadd[blocks, 128](&a32, &b32, &mut c)).map_err(|e| e.to_string())?;
    let want: Vec<f64> = a32
        .iter()
        .zip(&b32)
        .map(|(&x, &y)| x as f64 + y as f64)
        .collect();
    let got: Vec<f64> = c.iter().map(|&v| v as f64).collect();
    check("vecadd", &got, &want, 1e-6)?;

    let mut y32 = b32.clone();
    launch!(axpy2::<f32>[blocks, 128](scale as f32, &a32, &mut y32)).map_err(|e| e.to_string())?;
    let want: Vec<f64> = a32
        .iter()
        .zip(&b32)
        .map(|(&x, &y)| 2.0 * (scale as f32 as f64 * x as f64) + y as f64)
        .collect();
    let got: Vec<f64> = y32.iter().map(|&v| v as f64).collect();
    check("axpy2::<f32>", &got, &want, 1e-6)?;

    let mut y64 = b.clone();
    launch!(axpy2::<f64>[blocks, 128](scale, &a, &mut y64)).map_err(|e| e.to_string())?;
    let want: Vec<f64> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| 2.0 * (scale * x) + y)
        .collect();
    check("axpy2::<f64>", &y64, &want, 1e-14)?;

    // Every third element set, the others as they were.
    let mut z = b.clone();
    launch!(stride_fill::<f64, 3>[blocks, 128](scale, &mut z)).map_err(|e| e.to_string())?;
    let want: Vec<f64> = b
        .iter()
        .enumerate()
        .map(|(i, &y)| if i % 3 == 0 { scale } else { y })
        .collect();
    check("stride_fill::<f64, 3>", &z, &want, 0.0)?;

    // What a launch on this device (or, on the simulator, on an H100) would load.
    let device = Device::default().map_err(|e| e.to_string())?;
    let capability = match device.backend() {
        Backend::Cuda => device.compute_capability(),
        Backend::Simulator => (9, 0),
    };
    println!(
        "backend {:?} capability {}.{}",
        device.backend(),
        capability.0,
        capability.1
    );
    let sources = [
        ("vecadd", vecadd::source()),
        ("axpy2::<f32>", axpy2::__cudajit_instance::<f32>().0),
        ("axpy2::<f64>", axpy2::__cudajit_instance::<f64>().0),
        (
            "stride_fill::<f64, 3>",
            stride_fill::__cudajit_instance::<f64, 3>().0,
        ),
    ];
    // Every kernel has machine code for this device: loading it while the GPU opens
    // takes well under the context's creation, so all are checked for below.
    let mut machine_code_for_all = true;
    for (name, source) in sources {
        match cudajit::aot::find(source, capability).map_err(|e| e.to_string())? {
            Some(entry) => {
                if !entry.ptx.contains(&format!(".entry {}(", entry.kernel)) {
                    return Err(format!(
                        "{name}: embedded PTX has no entry {}",
                        entry.kernel
                    ));
                }
                // The machine code this device runs without the driver's JIT, if any.
                let sass = match entry.sass_for(capability) {
                    Some(code) if code.starts_with(b"\x7fELF") => format!(
                        "sass {} {}",
                        cudajit::aot::sass_arch(entry.arch).unwrap_or_default(),
                        code.len()
                    ),
                    Some(_) => {
                        return Err(format!("{name}: embedded machine code is no ELF image"))
                    }
                    None => {
                        machine_code_for_all = false;
                        "sass none".to_string()
                    }
                };
                println!("embedded {name} {} {} {sass}", entry.arch, entry.ptx.len());
            }
            None => {
                machine_code_for_all = false;
                println!("jit {name}")
            }
        }
    }
    if device.backend() == Backend::Cuda {
        let report = opening_report();
        if machine_code_for_all {
            let names: Vec<&str> = sources.iter().map(|(name, _)| *name).collect();
            took_modules_loaded_while_opening(&names, report)?;
        }
    }
    // Whether this process can compile at all: inspection needs libnvvm.
    match cudajit::inspect::inspect(vecadd::source(), "compute_90") {
        Ok(_) => println!("libnvvm available"),
        Err(e) => println!(
            "libnvvm unavailable: {}",
            e.to_string().lines().next().unwrap_or("")
        ),
    }
    Ok(())
}

/// What opening the GPU loaded (or compiled) and what each first launch did, printed
/// (`opened <kernel> ..`, `first launch <kernel> <stage>=<µs> ..`): the kernels loaded
/// while the GPU opened, and those whose first launch took that module.
fn opening_report() -> (Vec<String>, Vec<String>) {
    use cudajit::profile::{self, FirstStage};
    let mut loaded = Vec::new();
    for kernel in profile::compiled_while_opening_report() {
        println!(
            "opened {} machine_code {} loaded {} ptx_ms {:.2} library_ms {:.2}",
            kernel.kernel, kernel.machine_code, kernel.loaded, kernel.ptx_ms, kernel.library_ms
        );
        if kernel.loaded {
            loaded.push(kernel.kernel);
        }
    }
    let mut took = Vec::new();
    for first in profile::take_first_launches() {
        let stages: Vec<String> = first
            .stages
            .iter()
            .map(|(stage, us)| format!("{}={us:.0}us", stage.name()))
            .collect();
        println!("first launch {} {}", first.kernel, stages.join(" "));
        if first
            .stages
            .iter()
            .any(|(s, _)| *s == FirstStage::FromOpening)
        {
            took.push(first.kernel);
        }
    }
    loaded.sort();
    took.sort();
    (loaded, took)
}

/// On a GPU they have machine code for: the binary's kernels (`kernels`, as written:
/// `vecadd`, the instantiations `instantiate!` lists and the one a `launch!` names) were
/// loaded while the GPU opened, from the embedded table with or without libnvvm, and
/// each first launch took its module from there instead of compiling or loading it
/// then. Unless turned off by the variable.
fn took_modules_loaded_while_opening(
    kernels: &[&str],
    (loaded, took): (Vec<String>, Vec<String>),
) -> Result<(), String> {
    if std::env::var(cudajit::profile::COMPILE_WHILE_OPENING_VARIABLE)
        .is_ok_and(|v| v.trim() == "0")
    {
        println!("compiling while opening turned off");
        return Ok(());
    }
    let mut want: Vec<String> = kernels.iter().map(|k| k.to_string()).collect();
    want.sort();
    if loaded != want {
        return Err(format!(
            "loaded while the GPU opened: {loaded:?}, want {want:?}"
        ));
    }
    if took != want {
        return Err(format!(
            "first launches that took the module loaded while the GPU opened: {took:?}, want {want:?}"
        ));
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aot-crate: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
