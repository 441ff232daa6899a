use cudajit::prelude::*;

// Numba's `cuda.reduce` passes its 2-D shared `sm_partials` to a device function. Not
// yet: the message says so and names what works (a flat array as a slice).
#[device]
fn partial_sum(sm: &mut [[f32; 33]; 4], t: usize) -> f32 {
    sm[0][t] + sm[3][t]
}

#[kernel]
fn k(out: &mut [f32]) {
    let sm = shared_array::<[[f32; 33]; 4]>();
    let t = thread_idx().x as usize;
    out[t] = partial_sum(sm, t);
}

fn main() {}
