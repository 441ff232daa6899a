//! The memo's key: equal exactly when every input of the skipped checks is equal, and
//! absent for launches it must not remember. (Hits on a GPU: the `gpu` suites launch
//! each kernel many times, with lengths and shapes that change between launches.)

use std::sync::Arc;

use kernel_device::ir::{ScalarType, Type};

use super::*;
use crate::device::Device;
use crate::memory::allocation::Allocation;

static SOURCE_A: u8 = 0;
static SOURCE_B: u8 = 0;
static CACHE: u8 = 0;

/// Arrays at made-up addresses of a GPU-like device (ordinal 0, generation 0), which
/// no driver call ever sees.
fn arrays(device: &Device, n: u64) -> Vec<Arc<Allocation>> {
    (1..=n)
        .map(|i| Allocation::borrowed(device, i << 20, None, None))
        .collect()
}

fn device_arg(
    memory: &Arc<Allocation>,
    elem: ScalarType,
    mutable: bool,
    len: i64,
) -> KernelArg<'_> {
    KernelArg {
        kind: ArgKind::Device {
            elem: Type::Scalar(elem),
            device: memory.device_id(),
            mutable,
            sim_buffer: None,
            sim_offset: 0,
            allocation: Some(memory),
        },
        value: memory.ptr,
        len,
    }
}

fn key_of(
    source: &'static u8,
    config: &LaunchConfig<'_>,
    args: &[KernelArg<'_>],
    device: DeviceId,
) -> Option<MemoKey> {
    MemoKey::of((source, &CACHE), config, args, device)
}

#[test]
fn keys_differ_exactly_where_a_skipped_check_could() {
    let device = Device::simulator().unwrap();
    let memory = arrays(&device, 3);
    let gpu = memory[0].device_id();
    let len = 1000 + i64::from(rand_u8());
    let vecadd = |mutable_c: bool, len_c: i64| {
        vec![
            device_arg(&memory[0], ScalarType::F32, false, len),
            device_arg(&memory[1], ScalarType::F32, false, len),
            device_arg(&memory[2], ScalarType::F32, mutable_c, len_c),
            KernelArg::scalar(len as u32),
        ]
    };
    let config = LaunchConfig::new(4u32, 256u32);
    let base = key_of(&SOURCE_A, &config, &vecadd(true, len), gpu).expect("remembered");
    // The same launch again (other arrays of the same kinds and lengths included).
    assert!(key_of(&SOURCE_A, &config, &vecadd(true, len), gpu) == Some(base));
    let others = arrays(&device, 3);
    let same_kinds = [
        device_arg(&others[2], ScalarType::F32, false, len),
        device_arg(&others[1], ScalarType::F32, false, len),
        device_arg(&others[0], ScalarType::F32, true, len),
        KernelArg::scalar(7u32),
    ];
    assert!(key_of(&SOURCE_A, &config, &same_kinds, gpu) == Some(base));
    // Each input of the checks changed alone.
    let differs = |key: Option<MemoKey>| key.is_some_and(|k| k != base);
    assert!(differs(key_of(
        &SOURCE_A,
        &config,
        &vecadd(false, len),
        gpu
    )));
    assert!(differs(key_of(
        &SOURCE_A,
        &config,
        &vecadd(true, len - 1),
        gpu
    )));
    assert!(differs(key_of(&SOURCE_B, &config, &vecadd(true, len), gpu)));
    let mut other_elem = vecadd(true, len);
    other_elem[1] = device_arg(&memory[1], ScalarType::U32, false, len);
    assert!(differs(key_of(&SOURCE_A, &config, &other_elem, gpu)));
    let mut other_scalar = vecadd(true, len);
    other_scalar[3] = KernelArg::scalar(len as i32);
    assert!(differs(key_of(&SOURCE_A, &config, &other_scalar, gpu)));
    for shape in [
        LaunchConfig::new(5u32, 256u32),
        LaunchConfig::new((4u32, 2u32), 256u32),
        LaunchConfig::new(4u32, (256u32, 1u32, 2u32)),
        LaunchConfig::new(4u32, 256u32).shared_bytes(16),
    ] {
        assert!(differs(key_of(&SOURCE_A, &shape, &vecadd(true, len), gpu)));
    }
    let DeviceId::Cuda(ordinal, generation) = gpu else {
        unreachable!()
    };
    let later = DeviceId::Cuda(ordinal, generation + 1);
    let elsewhere = DeviceId::Cuda(ordinal + 1, generation);
    // A launch on another context generation or GPU than the arrays': the argument
    // check's to report, never remembered.
    assert!(key_of(&SOURCE_A, &config, &vecadd(true, len), later).is_none());
    assert!(key_of(&SOURCE_A, &config, &vecadd(true, len), elsewhere).is_none());
    let scalars_only = [KernelArg::scalar(1.5f64)];
    assert!(differs(key_of(&SOURCE_A, &config, &scalars_only, later)));
}

#[test]
fn launches_the_memo_cannot_stand_for_are_not_keyed() {
    let device = Device::simulator().unwrap();
    let memory = arrays(&device, 9);
    let gpu = memory[0].device_id();
    let config = LaunchConfig::new(4u32, 256u32);
    let host = [1.0f32, 2.0];
    let with_host = [
        device_arg(&memory[0], ScalarType::F32, false, 2),
        KernelArg::host(&host[..]),
    ];
    assert!(key_of(&SOURCE_A, &config, &with_host, gpu).is_none());
    // Too many arguments to remember.
    let many: Vec<_> = memory
        .iter()
        .map(|m| device_arg(m, ScalarType::F32, false, 8))
        .collect();
    assert!(key_of(&SOURCE_A, &config, &many, gpu).is_none());
    assert!(key_of(&SOURCE_A, &config, &many[..MEMO_ARGS], gpu).is_some());
    // The simulator, and shapes the check must report.
    assert!(key_of(&SOURCE_A, &config, &many[..1], device.id()).is_none());
    for bad in [
        LaunchConfig::new(-1i64, 256u32),
        LaunchConfig::new(4u32, 1u64 << 40),
        LaunchConfig::new(4u32, 256u32).shared_bytes(usize::MAX),
    ] {
        assert!(key_of(&SOURCE_A, &bad, &many[..1], gpu).is_none());
    }
}

/// A byte that differs between runs, so that the lengths compared are fresh.
fn rand_u8() -> u8 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as u8)
}

/// A table recalls what it stored for exactly that key, keeps one launch per kernel
/// (the latest), and replaces the kernel remembered longest ago when full.
#[test]
fn the_table_recalls_the_latest_launch_of_each_kernel() {
    static SOURCES: [u8; MEMO_KERNELS + 1] = [0; MEMO_KERNELS + 1];
    let device = Device::simulator().unwrap();
    let memory = arrays(&device, 1);
    let gpu = memory[0].device_id();
    let salt = u32::from(rand_u8());
    let args = |len| [device_arg(&memory[0], ScalarType::F32, true, len)];
    let config = LaunchConfig::new(4u32, 256u32);
    let key = |source: &'static u8, len| key_of(source, &config, &args(len), gpu).unwrap();
    let mut table = MemoTable::<u32>::new();
    assert_eq!(table.recall(&key(&SOURCES[0], 10)), None, "empty");
    table.store(key(&SOURCES[0], 10), salt);
    assert_eq!(table.recall(&key(&SOURCES[0], 10)), Some(salt));
    assert_eq!(table.recall(&key(&SOURCES[0], 11)), None, "another length");
    assert_eq!(table.recall(&key(&SOURCES[1], 10)), None, "another kernel");
    // The kernel's next launch takes its place.
    table.store(key(&SOURCES[0], 11), salt + 1);
    assert_eq!(table.recall(&key(&SOURCES[0], 10)), None);
    assert_eq!(table.recall(&key(&SOURCES[0], 11)), Some(salt + 1));
    // Full: the next new kernel replaces the one remembered longest ago.
    for (i, source) in SOURCES.iter().enumerate().skip(1) {
        table.store(key(source, 10), salt + 10 + i as u32);
    }
    assert_eq!(table.recall(&key(&SOURCES[0], 11)), None, "replaced");
    for (i, source) in SOURCES.iter().enumerate().skip(1) {
        assert_eq!(table.recall(&key(source, 10)), Some(salt + 10 + i as u32));
    }
}

/// The launch's in-place comparison answers what the key's does, for the launch the
/// table holds and for each way a launch can differ from it.
#[test]
fn recall_in_place_agrees_with_the_key() {
    let device = Device::simulator().unwrap();
    let memory = arrays(&device, 3);
    let gpu = memory[0].device_id();
    let DeviceId::Cuda(ordinal, generation) = gpu else {
        unreachable!()
    };
    let len = 500 + i64::from(rand_u8());
    let args = |mutable: bool, len_b: i64, elem: ScalarType| {
        vec![
            device_arg(&memory[0], ScalarType::F32, false, len),
            device_arg(&memory[1], elem, mutable, len_b),
            KernelArg::scalar(3u32),
        ]
    };
    let config = LaunchConfig::new(4u32, 256u32);
    let mut table = MemoTable::<i64>::new();
    let key = key_of(&SOURCE_A, &config, &args(true, len, ScalarType::F32), gpu).unwrap();
    table.store(key, len);
    let launches = [
        (&SOURCE_A, config, args(true, len, ScalarType::F32), gpu),
        (&SOURCE_B, config, args(true, len, ScalarType::F32), gpu),
        (
            &SOURCE_A,
            LaunchConfig::new(4u32, 128u32),
            args(true, len, ScalarType::F32),
            gpu,
        ),
        (
            &SOURCE_A,
            config.shared_bytes(8),
            args(true, len, ScalarType::F32),
            gpu,
        ),
        (
            &SOURCE_A,
            LaunchConfig::new(-4i64, 256u32),
            args(true, len, ScalarType::F32),
            gpu,
        ),
        (&SOURCE_A, config, args(false, len, ScalarType::F32), gpu),
        (&SOURCE_A, config, args(true, len + 1, ScalarType::F32), gpu),
        (&SOURCE_A, config, args(true, len, ScalarType::I32), gpu),
        (
            &SOURCE_A,
            config,
            {
                let mut fewer = args(true, len, ScalarType::F32);
                fewer.pop();
                fewer
            },
            gpu,
        ),
        (
            &SOURCE_A,
            config,
            args(true, len, ScalarType::F32),
            DeviceId::Cuda(ordinal, generation + 1),
        ),
        (
            &SOURCE_A,
            config,
            args(true, len, ScalarType::F32),
            device.id(),
        ),
    ];
    let mut hits = 0;
    for (i, (source, config, args, on)) in launches.iter().enumerate() {
        let by_key = key_of(source, config, args, *on).and_then(|k| table.recall(&k));
        let in_place = table.recall_launch((*source, &CACHE), config, args, *on);
        assert_eq!(in_place, by_key, "launch {i}");
        hits += usize::from(in_place.is_some());
    }
    assert_eq!(hits, 1, "only the stored launch is recalled");
}

/// A hit's shape is rebuilt from its key: for every shape the memo keys, what the
/// whole path's check returns for it (no opt-in, no clusters: what `remember` keeps).
#[test]
fn the_key_rebuilds_the_checked_shape() {
    let device = Device::simulator().unwrap();
    let memory = arrays(&device, 1);
    let gpu = memory[0].device_id();
    let args = [device_arg(&memory[0], ScalarType::F32, true, 64)];
    let salt = u32::from(rand_u8());
    for config in [
        LaunchConfig::new(4u32, 256u32),
        LaunchConfig::new(1 + salt, 32u32),
        LaunchConfig::new((3u32, 5u32, 7u32), (8u32, 4u32, 2u32)),
        LaunchConfig::new(65_535u32, (32u32, 32u32)).shared_bytes(4096 + salt as usize),
    ] {
        let valid = config
            .validate("k", device.limits())
            .expect("a valid shape");
        assert!(!valid.needs_shared_opt_in);
        let key = key_of(&SOURCE_A, &config, &args, gpu).expect("keyed");
        assert_eq!(key.valid_launch(), valid, "{:?}", config.grid.extents());
    }
    // Lengths past a `u32` are not keyed (the key holds lengths in 32 bits).
    let long = [device_arg(&memory[0], ScalarType::F32, true, 1 << 32)];
    let config = LaunchConfig::new(4u32, 256u32);
    assert!(key_of(&SOURCE_A, &config, &long, gpu).is_none());
    let longest = [device_arg(
        &memory[0],
        ScalarType::F32,
        true,
        u32::MAX.into(),
    )];
    assert!(key_of(&SOURCE_A, &config, &longest, gpu).is_some());
}
