// Barriers and fences: every form, with their predicate and mask operands.

#[kernel]
fn barriers(flags: &[bool], out: &mut [u32]) {
    let i = grid(1);
    let p = i < flags.len() && flags[i];
    sync_threads();
    let count = sync_threads_count(p);
    let all = sync_threads_and(p);
    let any = sync_threads_or(p);
    sync_warp(0xffff_ffff);
    threadfence_block();
    threadfence();
    threadfence_system();
    if i < out.len() {
        out[i] = count + all as u32 * 1000 + any as u32 * 10000;
    }
}
