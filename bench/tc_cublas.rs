//! cuBLAS's GEMMs timed in cudajit's own process, on cudajit's own buffers and stream,
//! interleaved launch by launch with cudajit's kernels and the nvcc twins.
//!
//! Why: an 8192³ GEMM's time moves by up to 12–15% with where its buffers land in device
//! memory, fixed per process by its allocation history
//! (`bench/results/2026-11-30-h200-e7bbbb9-tc-variance.txt`). cuBLAS timed in torch's
//! process (bench/cuda/tc_reference.py) measures torch's placement as much as cuBLAS;
//! here it runs on the very buffers cudajit's kernel used, so `%lib` compares the code.
//!
//! The library is loaded at run time (cudarc's dynamic loading, `libcublas.so` tried
//! before `libcublas.so.13`): the loader must find one (bench/run_tc.sh puts
//! /usr/local/cuda/lib64, else torch's nvidia/*/lib, on `LD_LIBRARY_PATH`); without it
//! the bench says so and the table keeps torch's own-process cuBLAS alone.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cublas::{sys, CudaBlas};
use cudarc::driver::CudaStream;

use crate::tc_twin::BenchResult;

/// A cuBLAS handle bound to the stream that cudajit's launches use.
pub struct Cublas {
    blas: CudaBlas,
}

/// The cuBLAS call that matches one benchmark: operand, output and compute types, and
/// the scalars' bytes (alpha = 1, beta = 0 in the compute type's scalar type).
struct GemmKind {
    operands: sys::cudaDataType,
    output: sys::cudaDataType,
    compute: sys::cublasComputeType_t,
    one: [u8; 8],
}

/// The cuBLAS equivalent of benchmark `bench`, the one torch.matmul / torch._int_mm
/// pick for the same operands: bf16 in and out with f32 accumulation, f32 with TF32
/// tensor cores (torch's allow_tf32), int8 in and i32 out with i32 accumulation, f64.
fn kind(bench: &str) -> Option<GemmKind> {
    use sys::cublasComputeType_t::*;
    use sys::cudaDataType::*;
    let (operands, output, compute, one) = match bench {
        "gemm_bf16_4096" | "gemm_bf16_8192" => (
            CUDA_R_16BF,
            CUDA_R_16BF,
            CUBLAS_COMPUTE_32F,
            scalar(&1f32.to_ne_bytes()),
        ),
        "gemm_tf32_8192" => (
            CUDA_R_32F,
            CUDA_R_32F,
            CUBLAS_COMPUTE_32F_FAST_TF32,
            scalar(&1f32.to_ne_bytes()),
        ),
        "gemm_int8_8192" => (
            CUDA_R_8I,
            CUDA_R_32I,
            CUBLAS_COMPUTE_32I,
            scalar(&1i32.to_ne_bytes()),
        ),
        "dgemm_f64_4096" => (
            CUDA_R_64F,
            CUDA_R_64F,
            CUBLAS_COMPUTE_64F,
            scalar(&1f64.to_ne_bytes()),
        ),
        _ => return None,
    };
    Some(GemmKind {
        operands,
        output,
        compute,
        one,
    })
}

/// A scalar's bytes in an 8-byte buffer (the rest zero: zero in every scalar type).
fn scalar(bytes: &[u8]) -> [u8; 8] {
    let mut out = [0u8; 8];
    out[..bytes.len()].copy_from_slice(bytes);
    out
}

impl Cublas {
    /// A handle on `stream`, or `None` with the reason printed when libcublas cannot be
    /// loaded or initialised (the table then keeps torch's own-process cuBLAS alone).
    pub fn on_stream(stream: &Arc<CudaStream>) -> Option<Cublas> {
        // SAFETY: only asks the loader whether libcublas can be opened.
        if !unsafe { sys::is_culib_present() } {
            println!(
                "tc: no in-process cuBLAS: neither libcublas.so nor libcublas.so.13 is on \
                 the loader's path (LD_LIBRARY_PATH={}); bench/run_tc.sh adds \
                 /usr/local/cuda/lib64 or torch's nvidia/*/lib",
                std::env::var("LD_LIBRARY_PATH").unwrap_or_default()
            );
            return None;
        }
        match CudaBlas::new(stream.clone()) {
            Ok(blas) => {
                let cublas = Cublas { blas };
                println!(
                    "tc: cuBLAS {} ({}), timed beside cudajit on the same buffers",
                    cublas.version().map_or("?".into(), |v| v.to_string()),
                    loaded_path().unwrap_or_else(|| "path unknown".into())
                );
                Some(cublas)
            }
            Err(e) => {
                println!("tc: no in-process cuBLAS: cublasCreate failed: {e}");
                None
            }
        }
    }

    fn version(&self) -> Option<i32> {
        let mut version = 0;
        // SAFETY: a live handle and a pointer to one int.
        let status = unsafe { sys::cublasGetVersion_v2(*self.blas.handle(), &mut version) };
        (status == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS).then_some(version)
    }

    /// Whether cuBLAS has an equivalent of benchmark `bench`.
    pub fn covers(bench: &str) -> bool {
        kind(bench).is_some()
    }

    /// C = A·Bᵀ for row-major n×n A, B (both K-contiguous) and row-major C, as
    /// torch.matmul(a, b.t()) calls it: column-major cuBLAS computes Cᵀ = B·Aᵀ, that is
    /// gemm(op(B) = T, op(A) = N) on the same memory, every leading dimension n.
    pub fn gemm(&self, bench: &str, a: u64, b: u64, c: u64, n: usize) -> BenchResult<()> {
        let kind = kind(bench).ok_or_else(|| format!("{bench}: no cuBLAS equivalent"))?;
        let side = i32::try_from(n)?;
        let zero = [0u8; 8];
        // SAFETY: a, b, c are device addresses of cudajit's n×n arrays of the kind's
        // types, alive until the stream is synchronised; alpha and beta point to host
        // scalars of the compute type's scalar type (host pointer mode, the default),
        // read before the call returns.
        unsafe {
            cudarc::cublas::result::gemm_ex(
                *self.blas.handle(),
                sys::cublasOperation_t::CUBLAS_OP_T,
                sys::cublasOperation_t::CUBLAS_OP_N,
                side,
                side,
                side,
                kind.one.as_ptr() as *const c_void,
                b as *const c_void,
                kind.operands,
                side,
                a as *const c_void,
                kind.operands,
                side,
                zero.as_ptr() as *const c_void,
                c as *mut c_void,
                kind.output,
                side,
                kind.compute,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DFALT,
            )?;
        }
        Ok(())
    }
}

/// Which libcublas the loader opened (from /proc/self/maps), for the log.
fn loaded_path() -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| path.contains("libcublas.so"))
        .map(str::to_owned)
}
