use cudajit::prelude::*;

#[kernel(launch_bounds = 384)]
fn k(registers: u32) {
    if thread_idx().x < 128 {
        setmaxnreg_dec::<40>(registers);
    }
}

fn main() {}
