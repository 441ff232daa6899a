use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let tile = shared_array::<[f32; 32]>();
    tile[0] = 1.0;
    cluster_sync();
    let rank = thread_idx().x as usize;
    out[0] = peer_read(tile, rank, 0);
    cluster_sync();
}

fn main() {}
