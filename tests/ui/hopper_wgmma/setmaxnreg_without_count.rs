use cudajit::prelude::*;

#[kernel(launch_bounds = 384)]
fn k() {
    if thread_idx().x < 128 {
        setmaxnreg_dec();
    }
}

fn main() {}
