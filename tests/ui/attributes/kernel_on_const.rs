use cudajit::prelude::*;

#[kernel]
const K: u32 = 1;

fn main() {}
