use cudajit::prelude::*;

static HITS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

#[kernel]
fn k(c: &mut [f32]) {
    HITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    c[0] = 0.0;
}

fn main() {}
