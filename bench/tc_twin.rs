//! The nvcc twins (bench/cuda/tc.cu's kernels, compiled by nvcc to a cubin) timed in
//! cudajit's own process, on cudajit's own buffers, interleaved launch by launch with
//! cudajit's checked and unchecked kernels.
//!
//! Why: the 8192³ GEMMs move by up to 12% with where their buffers land in the device's
//! memory (`bench/results/2026-11-30-h200-e7bbbb9-tc-variance.txt`: the twin and
//! cudajit's PTX on the same buffers, 12 placements, 2510–2808 us for both, ratio within
//! 0.98–1.02 at each). Each harness process gets its own placement, fixed by its
//! allocation history: tc.cu's landed at 2510 us three times out of three, tc.rs's at
//! 2740–2770 on the very same virtual addresses. Two processes compared the placements,
//! not the compilers; one process timing both on one set of buffers compares the code.
//!
//! `TC_TWIN=path/to/tc.cubin` turns it on (bench/run_tc.sh builds the cubin with
//! `nvcc -cubin` from tc.cu); the kernels are found by their mangled names.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The twins' module, and the stream that cudajit's launches share with them.
pub struct Twins {
    module: Arc<CudaModule>,
    stream: Arc<CudaStream>,
}

/// One twin kernel: its function and launch shape.
pub struct Twin<'t> {
    function: CudaFunction,
    stream: &'t Arc<CudaStream>,
    grid: (u32, u32),
    block: u32,
    shared: u32,
}

/// The mangled name of each benchmark's twin (tc.cu's `GemmConfig`/`AttentionConfig`
/// instantiations, nvcc 13.0's Itanium mangling; `cuobjdump -symbols` lists them).
fn symbol(bench: &str) -> Option<&'static str> {
    Some(match bench {
        "gemm_bf16_4096" | "gemm_bf16_8192" => {
            "_Z7tc_gemmI7Mma16x8I13__nv_bfloat16fS1_ES1_S1_Li128ELi128ELi64ELi2ELi2ELi3EEvPKT0_S5_PT1_iii"
        }
        "gemm_tf32_8192" => "_Z7tc_gemmI7Mma16x8IfffEffLi128ELi128ELi128ELi2ELi2ELi3EEvPKT0_S4_PT1_iii",
        "gemm_int8_8192" => "_Z7tc_gemmI7Mma16x8IaiiEaiLi128ELi128ELi64ELi2ELi2ELi4EEvPKT0_S4_PT1_iii",
        "dgemm_f64_4096" => "_Z7tc_gemmI6MmaF64ddLi128ELi128ELi128ELi2ELi4ELi3EEvPKT0_S3_PT1_iii",
        "attention_d64" => "_Z13attention_fwdILi64ELi4ELi2ELi128ELb1EEvPK13__nv_bfloat16S2_S2_PS0_if",
        "attention_d128" => "_Z13attention_fwdILi128ELi4ELi2ELi32ELb1EEvPK13__nv_bfloat16S2_S2_PS0_if",
        _ => return None,
    })
}

/// A stream of device 0's primary context (cudajit's) that cudajit's launches, the twins
/// and cuBLAS all share, as cudarc's and as cudajit's.
pub fn shared_stream() -> BenchResult<(Arc<CudaStream>, cudajit::Stream)> {
    let stream = CudaContext::new(0)?.new_stream()?;
    let shared = cudajit::Stream::from_cudarc(stream.clone())?;
    Ok((stream, shared))
}

impl Twins {
    /// The cubin at `$TC_TWIN` loaded into `stream`'s context, launching on `stream`;
    /// `None` when the variable is unset or the cubin does not load (said on stdout).
    pub fn from_env(stream: &Arc<CudaStream>) -> Option<Twins> {
        let path = std::env::var("TC_TWIN").ok()?;
        match stream.context().load_module(Ptx::from_file(&path)) {
            Ok(module) => {
                println!("tc: nvcc twins from {path}, timed beside cudajit on the same buffers");
                Some(Twins {
                    module,
                    stream: stream.clone(),
                })
            }
            // The table then compares with tc.cu's own process, as without the variable.
            Err(e) => {
                println!("tc: no nvcc twins ({path}: {e})");
                None
            }
        }
    }

    /// The twin of benchmark `bench` with its launch shape, or `None` (then the table
    /// uses tc.cu's own process alone, as before).
    pub fn twin(
        &self,
        bench: &str,
        grid: (u32, u32),
        block: u32,
        shared: usize,
    ) -> Option<Twin<'_>> {
        let function = self.module.load_function(symbol(bench)?).ok()?;
        let shared = u32::try_from(shared).ok()?;
        function
            .set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared as i32,
            )
            .ok()?;
        Some(Twin {
            function,
            stream: &self.stream,
            grid,
            block,
            shared,
        })
    }
}

impl Twin<'_> {
    fn config(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.grid.0, self.grid.1, 1),
            block_dim: (self.block, 1, 1),
            shared_mem_bytes: self.shared,
        }
    }

    /// `tc_gemm(A, B, C, M, N, K)` on device addresses of cudajit's arrays.
    pub fn gemm(&self, a: u64, b: u64, c: u64, n: usize) -> BenchResult<()> {
        let side = i32::try_from(n)?;
        let mut launch = self.stream.launch_builder(&self.function);
        launch
            .arg(&a)
            .arg(&b)
            .arg(&c)
            .arg(&side)
            .arg(&side)
            .arg(&side);
        // SAFETY: tc_gemm's parameters (three device pointers to n×n elements of the
        // kernel's types, cudajit's arrays, alive until the stream is synchronised, and
        // three ints); the shape is the one tc.cu launches it with.
        unsafe { launch.launch(self.config()) }?;
        Ok(())
    }

    /// `attention_fwd(Q, K, V, O, seq, scale_log2)` on device addresses.
    pub fn attention(&self, qkvo: [u64; 4], seq: usize, scale_log2: f32) -> BenchResult<()> {
        let seq = i32::try_from(seq)?;
        let mut launch = self.stream.launch_builder(&self.function);
        for p in &qkvo {
            launch.arg(p);
        }
        launch.arg(&seq).arg(&scale_log2);
        // SAFETY: attention_fwd's parameters: four device pointers to heads×seq×D bf16
        // (cudajit's arrays, alive until the stream is synchronised), the sequence
        // length and the softmax scale; the shape is tc.cu's.
        unsafe { launch.launch(self.config()) }?;
        Ok(())
    }
}

/// Medians (µs) of `reps` event-timed launches of each of `n` variants (`body(i)`
/// launches variant i) on `stream`, after `warmup` untimed rounds; round r launches
/// them starting at variant r mod n, so that no variant always follows the same other.
pub fn time_rotating(
    stream: &cudajit::Stream,
    warmup: usize,
    reps: usize,
    n: usize,
    body: &mut dyn FnMut(usize) -> BenchResult<()>,
) -> BenchResult<Vec<f64>> {
    for _ in 0..warmup {
        for which in 0..n {
            body(which)?;
        }
    }
    stream.synchronize()?;
    let mut events = Vec::with_capacity(reps * n);
    for r in 0..reps {
        for j in 0..n {
            let which = (r + j) % n;
            let start = cudajit::Event::record(stream)?;
            body(which)?;
            events.push((which, start, cudajit::Event::record(stream)?));
        }
    }
    stream.synchronize()?;
    let mut us = vec![Vec::with_capacity(reps); n];
    for (which, start, end) in &events {
        us[*which].push(start.elapsed_ms(end)? as f64 * 1e3);
    }
    Ok(us.into_iter().map(crate::stats::median).collect())
}
