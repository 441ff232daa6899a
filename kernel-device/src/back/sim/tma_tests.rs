//! Hopper TMA on the simulator. So far: a kernel staging data through aligned shared
//! tiles (`shared_array_aligned`) computes what the CPU does. Each shared array is a
//! region of its own whose offsets start at 0, so every alignment a kernel asks for
//! holds there.

use super::tests::{buffer_of, module, read_back, shape, slice, Rng};
use super::{run, Options};
use crate::ir::ScalarType;

/// A 32 x 32 transpose of `u16`s through a 1024-aligned tile, plus a 256-aligned row
/// buffer that every thread adds from.
const TRANSPOSE: &str = r#"
#[kernel]
fn k(input: &[u16], out: &mut [u16]) {
    let tile = shared_array_aligned::<[[u16; 32]; 32], 1024>();
    let bias: &mut [u16; 32] = shared_array_aligned::<_, 256>();
    let t = thread_idx().x as usize;
    for r in 0..32 {
        tile[r][t] = input[r * 32 + t];
    }
    bias[t] = (t * 3) as u16;
    sync_threads();
    for r in 0..32 {
        out[t * 32 + r] = tile[r][t].wrapping_add(bias[r]);
    }
}
"#;

#[test]
fn a_kernel_staging_through_aligned_tiles_matches_the_cpu() {
    let mut rng = Rng::fresh();
    let input: Vec<u16> = (0..1024).map(|_| rng.below(1 << 16) as u16).collect();
    let want: Vec<u16> = (0..1024)
        .map(|i| {
            let (c, r) = (i / 32, i % 32);
            input[r * 32 + c].wrapping_add((r * 3) as u16)
        })
        .collect();
    let m = module(TRANSPOSE, "k");
    let aligns: Vec<u32> = m.globals.iter().map(|(_, g)| g.align).collect();
    assert_eq!(aligns, [1024, 256]);
    let (bi, bo) = (buffer_of(&input), buffer_of(&vec![0xABABu16; 1024]));
    run(
        &m,
        "k",
        &shape(1, 32),
        &[
            slice(ScalarType::U16, &bi, 1024, false),
            slice(ScalarType::U16, &bo, 1024, true),
        ],
        &Options::default(),
    )
    .unwrap_or_else(|f| panic!("input seed {}: {f}", rng.seed));
    assert_eq!(read_back::<u16>(&bo, 1024), want, "input seed {}", rng.seed);
}
