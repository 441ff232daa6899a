use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    out[0] = cluster_size();
}

fn main() {
    let mut out = vec![0u32; 1];
    // A cluster shape counts blocks: integers, as a grid's.
    let _ = launch!(k[2, 32, cluster = (2.0, 1, 1)](&mut out));
}
