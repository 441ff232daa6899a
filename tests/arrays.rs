//! Arrays and constants through the macros, without a GPU: a kernel that names crate
//! `const`/`static` items records rustc's values of them, and its compilation unit
//! (as the run-time compiler builds it from the embedded sources) puts shared arrays
//! in `addrspace(3)`, constant tables in `addrspace(4)` and local arrays in allocas.
//! The kernels also run, as one thread, on a simulated device.

use cudajit::prelude::*;

const TILE: usize = 4;
const PADDED: usize = TILE + 1;
const SCALE: f32 = 0.5;
const TAPS: [f32; 3] = [0.25, 0.5, 0.25];
static LUT: [[u8; 2]; 2] = [[1, 2], [3, 4]];

mod other {
    /// Same name, other value: each function sees its own module's constant.
    pub const TILE: usize = 2;

    use cudajit::prelude::*;

    #[device]
    pub fn tile_of_other_module() -> usize {
        let t = [0u32; TILE];
        t.len() + TILE
    }

    /// Constants by path, from a device function (whose statics sit a module deeper).
    #[device]
    pub fn by_path() -> f32 {
        super::TAPS[1] * self::TILE as f32 + super::config::BIAS[config_index()]
    }

    #[device]
    fn config_index() -> usize {
        super::config::LAST
    }
}

mod config {
    pub const BIAS: [f32; 2] = [0.125, 0.375];
    pub const LAST: usize = BIAS.len() - 1;
}

#[kernel]
fn paths(out: &mut [f32]) {
    out[0] = other::by_path() + config::BIAS[0] * other::TILE as f32;
}

#[device]
fn sum_row(row: &[f32]) -> f32 {
    let mut s = 0.0;
    for k in 0..row.len() {
        s += row[k];
    }
    s
}

#[kernel]
fn tiles(x: &[f32], out: &mut [f32]) {
    let tile: &mut [[f32; PADDED]; TILE] = shared_array();
    let t = thread_idx().x as usize;
    let mut local = [SCALE; TILE];
    for k in 0..TILE {
        local[k] *= x[(t + k) % x.len()];
        tile[t % TILE][k] = local[k] * TAPS[k % 3];
    }
    // The padding column too: `sum_row` reads the whole row.
    tile[t % TILE][TILE] = 0.0;
    sync_threads();
    let other_tile = other::tile_of_other_module();
    out[t] = sum_row(&tile[t % TILE]) + LUT[1][t % 2] as f32 + other_tile as f32;
}

fn unit_ir(kernel: &'static cudajit::__private::FnSource) -> String {
    kernel_device::nvvm_ir_for_kernel(kernel, &Default::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .nvvm_ir
}

#[test]
fn kernels_record_rustcs_values_of_the_constants_they_name() {
    let src = tiles::source();
    let names: Vec<&str> = src.consts.iter().map(|c| c.name).collect();
    assert_eq!(names, ["PADDED", "TILE", "SCALE", "TAPS", "LUT"]);
    let padded = (src.consts[0].value)();
    assert_eq!(padded.as_u64(), Some(5));
    let taps = (src.consts[3].value)();
    assert_eq!(taps.ty().to_string(), "[f32; 3]");
}

#[test]
fn the_unit_puts_each_array_in_its_memory() {
    let ir = unit_ir(tiles::source());
    assert!(
        ir.contains("@__cudajit_shared_tiles_0 = internal addrspace(3) global [4 x [5 x float]] undef, align 16"),
        "{ir}"
    );
    assert!(
        ir.contains("internal addrspace(4) constant [3 x float] [float 0x3FD0000000000000, float 0x3FE0000000000000, float 0x3FD0000000000000]"),
        "{ir}"
    );
    assert!(
        ir.contains("internal addrspace(4) constant [2 x [2 x i8]] [[2 x i8] [i8 1, i8 2], [2 x i8] [i8 3, i8 4]]"),
        "{ir}"
    );
    assert!(ir.contains("alloca [4 x float]"), "{ir}");
    // The row passed to `sum_row` is a generic slice over shared memory.
    assert!(ir.contains("addrspacecast float addrspace(3)*"), "{ir}");
    // `other::TILE` is 2 inside `tile_of_other_module`.
    assert!(ir.contains("alloca [2 x i32]"), "{ir}");
}

#[test]
fn constants_named_by_path_reach_the_compiler() {
    let src = paths::source();
    let names: Vec<&str> = src.consts.iter().map(|c| c.name).collect();
    assert_eq!(names, ["config::BIAS", "other::TILE"]);
    let ir = unit_ir(src);
    assert!(
        ir.contains("internal addrspace(4) constant [2 x float] [float 0x3FC0000000000000, float 0x3FD8000000000000]"),
        "{ir}"
    );
    let mut out = [f32::NAN];
    launch!(paths[1, 1, one_thread_device()](&mut out)).unwrap();
    // TAPS[1] * 2 + BIAS[1] + BIAS[0] * 2
    assert_eq!(out[0], 0.5 * 2.0 + 0.375 + 0.125 * 2.0);
}

/// The stream of a simulated device of this test's own (whatever the default device is).
fn one_thread_device() -> cudajit::Stream {
    let device = cudajit::Device::simulator_with(cudajit::SimOptions::default());
    device.new_stream().unwrap()
}

#[test]
fn a_kernel_as_one_thread_on_the_simulator_reads_its_constants_and_shared_arrays() {
    let x = [1.0f32, 2.0, 3.0, 4.0];
    let mut out = [f32::NAN; 1];
    launch!(tiles[1, 1, one_thread_device()](&x, &mut out)).unwrap();
    // Thread 0: local = [0.5, 1, 1.5, 2] * taps [.25, .5, .25, .25] summed, + LUT[1][0]
    // + the other module's 2 + 2.
    let want = 0.5 * 0.25 + 1.0 * 0.5 + 1.5 * 0.25 + 2.0 * 0.25 + 3.0 + 4.0;
    assert_eq!(out[0], want);
}
