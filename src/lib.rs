//! cudajit: write CUDA kernels as Rust functions. (Facade; being written.)
extern crate self as cudajit;
