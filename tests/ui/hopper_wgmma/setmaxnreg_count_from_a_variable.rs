use cudajit::prelude::*;

#[kernel(launch_bounds = 384)]
fn k() {
    let registers = 40;
    if thread_idx().x < 128 {
        setmaxnreg_dec::<registers>();
    }
}

fn main() {}
