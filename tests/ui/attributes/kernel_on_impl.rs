use cudajit::prelude::*;

struct S;

#[kernel]
impl S {}

fn main() {}
