// The device RNG (cudajit::random, whose #[device] functions every input can call):
// Monte-Carlo pi with one generator per thread (a shared-memory block sum, one atomic
// per block), and every kind of draw.

#[kernel]
fn monte_carlo_pi(states: &mut [u64], per_thread: &mut [u32], total: &mut [u64], samples: u32) {
    let mut smem = dynamic_shared();
    let counts = smem.take::<u32>(block_dim().x as usize);
    let t = thread_idx().x as usize;
    let i = grid(1);
    let mut inside = 0u32;
    if i < per_thread.len() {
        for _ in 0..samples {
            let x = xoroshiro128p_uniform_f32(states, i);
            let y = xoroshiro128p_uniform_f32(states, i);
            if x * x + y * y <= 1.0 {
                inside += 1;
            }
        }
        per_thread[i] = inside;
    }
    counts[t] = inside;
    sync_threads();
    let mut half = counts.len() / 2;
    while half > 0 {
        if t < half {
            counts[t] += counts[t + half];
        }
        sync_threads();
        half /= 2;
    }
    if t == 0 {
        atomic_add(total, 0, counts[0] as u64);
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
