use cudajit::prelude::*;

#[device]
enum Mode {
    Fast,
    Exact,
}

fn main() {}
