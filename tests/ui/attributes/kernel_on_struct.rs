use cudajit::prelude::*;

#[kernel]
struct K;

fn main() {}
