// Grid-wide barriers: a two-phase sum (every block writes a partial, the grid waits,
// block 0 adds them) and a barrier reached through a device function. Both units
// define `@__cudajit_grid_sync` and must be launched cooperatively.

#[device]
fn publish_then_wait(partials: &mut [f32], block: usize, value: f32) {
    if thread_idx().x == 0 {
        partials[block] = value;
    }
    grid_sync();
}

#[kernel]
fn two_phase_sum(x: &[f32], partials: &mut [f32], total: &mut [f32]) {
    let block = block_idx().x as usize;
    let mut sum = 0.0f32;
    for i in (grid(1)..x.len()).step_by(grid_size(1)) {
        sum += x[i];
    }
    partials[grid(1)] = sum;
    grid_sync();
    if grid(1) == 0 {
        let mut all = 0.0f32;
        for p in 0..partials.len() {
            all += partials[p];
        }
        total[0] = all;
    }
    publish_then_wait(partials, block, 0.0);
}
