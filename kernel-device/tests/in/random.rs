// The device RNG (cudajit::random, whose #[device] functions every input can call):
// Monte-Carlo pi with one generator per thread, and every kind of draw.

#[kernel]
fn monte_carlo_pi(states: &mut [u64], hits: &mut [u32], samples: u32) {
    let i = grid(1);
    if i < hits.len() {
        let mut inside = 0u32;
        for _ in 0..samples {
            let x = xoroshiro128p_uniform_f32(states, i);
            let y = xoroshiro128p_uniform_f32(states, i);
            if x * x + y * y <= 1.0 {
                inside += 1;
            }
        }
        hits[i] = inside;
    }
}

#[kernel]
fn every_draw(states: &mut [u64], u32s: &mut [f32], u64s: &mut [f64], n32: &mut [f32], n64: &mut [f64]) {
    let i = grid(1);
    if i < u32s.len() {
        u32s[i] = xoroshiro128p_uniform_f32(states, i);
        u64s[i] = xoroshiro128p_uniform_f64(states, i);
        n32[i] = xoroshiro128p_normal_f32(states, i);
        n64[i] = xoroshiro128p_normal_f64(states, i);
        xoroshiro128p_jump(states, i);
    }
}
