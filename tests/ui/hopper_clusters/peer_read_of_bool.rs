use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let flags = shared_array::<[bool; 32]>();
    flags[0] = true;
    cluster_sync();
    // A peer access moves 32 or 64 bits: i32, u32, f32, i64, u64, f64.
    if peer_read(flags, 1, 0) {
        out[0] = 1;
    }
    cluster_sync();
}

fn main() {}
