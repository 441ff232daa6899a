// The first type argument is an mma.sync shape marker.
use cudajit::prelude::*;

fn main() {
    let _a = FragA::<u32, bf16>::zero();
}
