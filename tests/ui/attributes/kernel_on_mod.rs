use cudajit::prelude::*;

#[kernel]
mod kernels {}

fn main() {}
