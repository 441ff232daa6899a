//! Several devices in one process, written once for both backends: every test runs on
//! three simulated devices (`Device::simulators`), and again on the host's GPUs when it
//! has two or more (`Device::all`; skipped with a message otherwise, e.g. in CI).
//! Collectives are checked element by element against the same reduction computed here
//! on the CPU from fresh random integers (exact in every type), receive buffers are
//! poisoned first, and ordering is checked through kernels that write before and read
//! after a collective on other streams.

use cudajit::prelude::*;
use cudajit::{Communicator, Communicators, Error, PeerPath, ReduceOp, UniqueId};

#[path = "../examples/common/mod.rs"]
mod common;

/// The device sets each test runs on: three simulated devices, and the GPUs when the
/// host has two or more.
fn device_sets() -> Vec<Vec<Device>> {
    let mut sets = vec![Device::simulators(3).unwrap()];
    match Device::all() {
        Ok(gpus) if gpus.len() >= 2 => sets.push(gpus),
        _ => eprintln!(
            "multi_device: fewer than two GPUs here; the GPU half of this test is skipped"
        ),
    }
    sets
}

/// Random small integers as `T` (exact under sums and products of a few ranks).
fn values<T: Copy>(rng: &mut common::Rng, n: usize, make: impl Fn(i64) -> T) -> Vec<T> {
    (0..n).map(|_| make(rng.below(7) as i64 - 3)).collect()
}

fn reference(inputs: &[Vec<i64>], op: ReduceOp) -> Vec<i64> {
    let n = inputs[0].len();
    (0..n)
        .map(|i| {
            let column = inputs.iter().map(|v| v[i]);
            match op {
                ReduceOp::Sum => column.sum(),
                ReduceOp::Prod => column.product(),
                ReduceOp::Min => column.min().unwrap(),
                ReduceOp::Max => column.max().unwrap(),
                ReduceOp::Avg => column.sum::<i64>() / inputs.len() as i64,
            }
        })
        .collect()
}

/// all_reduce of every op on `T`, through `to`/`from` conversions to i64.
fn check_all_reduce<T: cudajit::CollectiveElem + PartialEq + std::fmt::Debug>(
    devices: &[Device],
    make: impl Fn(i64) -> T + Copy,
    back: impl Fn(T) -> i64,
    ops: &[ReduceOp],
) {
    let comms = Communicators::new(devices).unwrap();
    let mut rng = common::Rng::fresh("all_reduce");
    let n = 1000 + rng.below(500) as usize;
    for &op in ops {
        let inputs: Vec<Vec<i64>> = (0..devices.len())
            .map(|_| values(&mut rng, n, |v| v))
            .collect();
        let mut bufs: Vec<DeviceArray<T>> = devices
            .iter()
            .zip(&inputs)
            .map(|(d, v)| {
                d.to_device(&v.iter().map(|&x| make(x)).collect::<Vec<_>>())
                    .unwrap()
            })
            .collect();
        comms.all_reduce(&mut bufs, op).unwrap();
        let want = reference(&inputs, op);
        for (rank, buf) in bufs.iter().enumerate() {
            let got: Vec<i64> = buf.to_host().unwrap().into_iter().map(&back).collect();
            assert_eq!(
                got,
                want,
                "{op:?} on `{}`, rank {rank} of {:?}",
                std::any::type_name::<T>(),
                devices[rank]
            );
        }
    }
}

#[test]
fn all_reduce_gives_the_cpus_reduction_for_every_type_and_op() {
    use cudajit::{bf16, f16};
    let all = [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max];
    for devices in device_sets() {
        check_all_reduce(
            &devices,
            |v| v as i32,
            |v| v as i64,
            &[all.as_slice(), &[ReduceOp::Avg]].concat(),
        );
        check_all_reduce(&devices, |v| v as i8, |v| v as i64, &all);
        check_all_reduce(&devices, |v| v as i64, |v| v, &all);
        check_all_reduce(
            &devices,
            |v| (v + 3) as u8,
            |v| v as i64 - 3,
            &[ReduceOp::Min, ReduceOp::Max],
        );
        check_all_reduce(
            &devices,
            |v| (v + 3) as u32,
            |v| v as i64 - 3,
            &[ReduceOp::Min, ReduceOp::Max],
        );
        check_all_reduce(
            &devices,
            |v| (v + 3) as u64,
            |v| v as i64 - 3,
            &[ReduceOp::Min, ReduceOp::Max],
        );
        check_all_reduce(&devices, |v| v as f32, |v| v as i64, &all);
        check_all_reduce(&devices, |v| v as f64, |v| v as i64, &all);
        check_all_reduce(
            &devices,
            |v| f16::from_f32(v as f32),
            |v| v.to_f32() as i64,
            &all,
        );
        check_all_reduce(
            &devices,
            |v| bf16::from_f32(v as f32),
            |v| v.to_f32() as i64,
            &all,
        );
    }
}

#[test]
fn broadcast_reduce_gather_and_scatter_give_the_cpus_results() {
    for devices in device_sets() {
        let ranks = devices.len();
        let comms = Communicators::new(&devices).unwrap();
        let mut rng = common::Rng::fresh("collectives");
        let n = 256 * (1 + rng.below(4) as usize);
        let inputs: Vec<Vec<i64>> = (0..ranks)
            .map(|_| values(&mut rng, n * ranks, |v| v))
            .collect();
        let upload = |data: &dyn Fn(usize) -> Vec<f32>| -> Vec<DeviceArray<f32>> {
            devices
                .iter()
                .enumerate()
                .map(|(r, d)| d.to_device(&data(r)).unwrap())
                .collect()
        };
        let as_f32 = |v: &[i64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
        let poison = |len: usize| move |_: usize| vec![f32::NAN; len];

        // broadcast from the last rank.
        let root = ranks - 1;
        let mut bufs = upload(&|r| as_f32(&inputs[r]));
        comms.broadcast(&mut bufs, root).unwrap();
        for buf in &bufs {
            assert_eq!(buf.to_host().unwrap(), as_f32(&inputs[root]));
        }

        // reduce to rank 1: the others keep their data.
        let mut bufs = upload(&|r| as_f32(&inputs[r]));
        comms.reduce(&mut bufs, ReduceOp::Sum, 1).unwrap();
        assert_eq!(
            bufs[1].to_host().unwrap(),
            as_f32(&reference(&inputs, ReduceOp::Sum))
        );
        assert_eq!(bufs[0].to_host().unwrap(), as_f32(&inputs[0]));

        // all_reduce_into: a separate, poisoned receive buffer.
        let send = upload(&|r| as_f32(&inputs[r]));
        let mut recv = upload(&poison(n * ranks));
        comms
            .all_reduce_into(&send, &mut recv, ReduceOp::Max)
            .unwrap();
        for buf in &recv {
            assert_eq!(
                buf.to_host().unwrap(),
                as_f32(&reference(&inputs, ReduceOp::Max))
            );
        }

        // all_gather of each rank's first n elements.
        let send = upload(&|r| as_f32(&inputs[r][..n]));
        let mut recv = upload(&poison(n * ranks));
        comms.all_gather(&send, &mut recv).unwrap();
        let gathered: Vec<f32> = inputs.iter().flat_map(|v| as_f32(&v[..n])).collect();
        for buf in &recv {
            assert_eq!(buf.to_host().unwrap(), gathered);
        }

        // reduce_scatter: rank r gets block r of the sum.
        let send = upload(&|r| as_f32(&inputs[r]));
        let mut recv = upload(&poison(n));
        comms
            .reduce_scatter(&send, &mut recv, ReduceOp::Sum)
            .unwrap();
        let sum = as_f32(&reference(&inputs, ReduceOp::Sum));
        for (r, buf) in recv.iter().enumerate() {
            assert_eq!(buf.to_host().unwrap(), sum[r * n..(r + 1) * n], "rank {r}");
        }
    }
}

/// One thread per rank, joined through a `UniqueId`: the multi-process pattern.
#[test]
fn ranks_on_their_own_threads_reduce_and_pass_a_ring() {
    for devices in device_sets() {
        let ranks = devices.len();
        let id = if devices[0].is_simulator() {
            UniqueId::simulated()
        } else {
            UniqueId::new().unwrap()
        };
        let results: Vec<(Vec<i32>, Vec<i32>)> = std::thread::scope(|s| {
            let handles: Vec<_> = devices
                .iter()
                .enumerate()
                .map(|(rank, device)| {
                    s.spawn(move || {
                        let comm = Communicator::join(device, &id, rank, ranks).unwrap();
                        let mut buf = device.to_device(&vec![rank as i32 + 1; 64]).unwrap();
                        comm.all_reduce_in_place(&mut buf, ReduceOp::Sum).unwrap();
                        // A ring: send to the next rank, receive from the previous one.
                        let mine = device.to_device(&vec![rank as i32 * 10; 32]).unwrap();
                        let mut theirs = device.to_device(&vec![-1i32; 32]).unwrap();
                        let (next, prev) = ((rank + 1) % ranks, (rank + ranks - 1) % ranks);
                        // Even ranks send first, odd ranks receive first: no cycle of waits.
                        if rank % 2 == 0 {
                            comm.send(&mine, next).unwrap();
                            comm.recv(&mut theirs, prev).unwrap();
                        } else {
                            comm.recv(&mut theirs, prev).unwrap();
                            comm.send(&mine, next).unwrap();
                        }
                        (buf.to_host().unwrap(), theirs.to_host().unwrap())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let total: i32 = (1..=ranks as i32).sum();
        for (rank, (sum, received)) in results.iter().enumerate() {
            assert_eq!(sum, &vec![total; 64], "rank {rank}");
            let prev = (rank + ranks - 1) % ranks;
            assert_eq!(received, &vec![prev as i32 * 10; 32], "rank {rank}");
        }
    }
}

#[kernel]
fn fill_ramp(out: &mut [f32], scale: f32) {
    let i = grid(1);
    if i < out.len() {
        out[i] = i as f32 * scale;
    }
}

#[kernel]
fn add_one(a: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = a[i] + 1.0;
    }
}

/// A collective waits for the kernel that wrote its input on another stream, and a
/// kernel on a third stream waits for the collective: ordered like any other use.
#[test]
fn collectives_are_ordered_with_kernels_on_other_streams() {
    for devices in device_sets() {
        let ranks = devices.len();
        let n = 1 << 16;
        let comms = Communicators::new(&devices).unwrap();
        let mut bufs: Vec<DeviceArray<f32>> = devices.iter().map(|d| d.zeros(n).unwrap()).collect();
        for (r, (device, buf)) in devices.iter().zip(&mut bufs).enumerate() {
            let stream = device.new_stream().unwrap();
            launch!(fill_ramp[n.div_ceil(256), 256, stream](buf, r as f32 + 1.0)).unwrap();
        }
        comms.all_reduce(&mut bufs, ReduceOp::Sum).unwrap();
        let factor: f32 = (1..=ranks).map(|r| r as f32).sum();
        for (device, buf) in devices.iter().zip(&bufs) {
            let stream = device.new_stream().unwrap();
            let mut out = device.to_device(&vec![f32::NAN; n]).unwrap();
            launch!(add_one[n.div_ceil(256), 256, stream](buf, &mut out)).unwrap();
            let got = out.to_host().unwrap();
            for (i, g) in got.iter().enumerate() {
                assert_eq!(*g, i as f32 * factor + 1.0, "element {i} on {device:?}");
            }
        }
    }
}

#[test]
fn arrays_of_another_device_are_refused_naming_both() {
    for devices in device_sets() {
        let comms = Communicators::new(&devices).unwrap();
        // Rank 0's array made on device 1.
        let mut bufs: Vec<DeviceArray<f32>> = devices.iter().map(|d| d.zeros(8).unwrap()).collect();
        bufs[0] = devices[1].zeros(8).unwrap();
        let error = comms.all_reduce(&mut bufs, ReduceOp::Sum).unwrap_err();
        let text = error.to_string();
        assert!(matches!(error, Error::ArgumentMismatch { .. }), "{text}");
        let (on, want) = (
            format!("{}", devices[1].ordinal()),
            format!("{}", devices[0].ordinal()),
        );
        assert!(
            text.contains(&format!("device {on}")) && text.contains(&format!("device {want}")),
            "{text}"
        );

        // A launch of a kernel on device 0 with an array of device 1: also an `Err`.
        let stream = devices[0].new_stream().unwrap();
        let a = devices[1].zeros::<f32>(8).unwrap();
        let mut out = devices[0].zeros::<f32>(8).unwrap();
        let error = launch!(add_one[1, 8, stream](&a, &mut out)).unwrap_err();
        assert!(
            error.to_string().contains(&format!("device {on}")),
            "{error}"
        );

        // The wrong number of arrays, and a length that does not fit all_gather.
        let mut short: Vec<DeviceArray<f32>> =
            devices[1..].iter().map(|d| d.zeros(8).unwrap()).collect();
        assert!(comms.all_reduce(&mut short, ReduceOp::Sum).is_err());
        let send: Vec<DeviceArray<f32>> = devices.iter().map(|d| d.zeros(8).unwrap()).collect();
        let mut recv: Vec<DeviceArray<f32>> = devices.iter().map(|d| d.zeros(9).unwrap()).collect();
        let error = comms.all_gather(&send, &mut recv).unwrap_err();
        assert!(error.to_string().contains("all_gather"), "{error}");
        // A device listed twice.
        assert!(Communicators::new(&[devices[0].clone(), devices[0].clone()]).is_err());
    }
}

#[test]
fn ranks_calling_different_collectives_get_an_error_naming_both() {
    let devices = Device::simulators(2).unwrap();
    let id = UniqueId::simulated();
    let a = Communicator::join(&devices[0], &id, 0, 2).unwrap();
    let b = Communicator::join(&devices[1], &id, 1, 2).unwrap();
    let error = std::thread::scope(|s| {
        s.spawn(|| {
            let mut x = devices[0].zeros::<f32>(4).unwrap();
            let _ = a.broadcast(&mut x, 0);
        });
        let mut y = devices[1].zeros::<f32>(4).unwrap();
        // Rank 1 may deposit first (then rank 0's broadcast is refused and this
        // call waits out its limit): call in the order that reports here.
        std::thread::sleep(std::time::Duration::from_millis(200));
        b.all_reduce_in_place(&mut y, ReduceOp::Sum).unwrap_err()
    });
    let text = error.to_string();
    assert!(
        text.contains("AllReduce") && text.contains("Broadcast"),
        "{text}"
    );
    assert!(
        Communicator::join(&devices[0], &id, 0, 2).is_err(),
        "rank 0 joined twice"
    );
    assert!(Communicator::join(&devices[0], &UniqueId::simulated(), 2, 2).is_err());
}

#[test]
fn peer_copies_move_every_element_between_devices() {
    for devices in device_sets() {
        let mut rng = common::Rng::fresh("peer");
        let n = (1 << 20) + rng.below(1000) as usize;
        let data = rng.vec_f32(n, -1.0, 1.0);
        let a = devices[0].to_device(&data).unwrap();
        let path = devices[0].peer_path(&devices[1]).unwrap();
        assert_ne!(path, PeerPath::SameDevice);
        assert_eq!(
            devices[0].peer_path(&devices[0]).unwrap(),
            PeerPath::SameDevice
        );
        let b = a.copy_to_device(&devices[1]).unwrap();
        assert_eq!(b.device(), &devices[1]);
        assert_eq!(b.to_host().unwrap(), data);
        // Into an existing, poisoned array, after a kernel wrote the source on a stream.
        let mut c = devices[1].to_device(&vec![f32::NAN; n]).unwrap();
        let mut src = devices[0].zeros::<f32>(n).unwrap();
        let stream = devices[0].new_stream().unwrap();
        launch!(fill_ramp[n.div_ceil(256), 256, stream](&mut src, 0.5)).unwrap();
        c.copy_from_array(&src).unwrap();
        let got = c.to_host().unwrap();
        assert!(got.iter().enumerate().all(|(i, &g)| g == i as f32 * 0.5));
        let mut wrong = devices[1].zeros::<f32>(n - 1).unwrap();
        assert!(wrong.copy_from_array(&src).is_err());
    }
}

/// On a host with one GPU or more: NCCL found and working through a communicator of
/// one rank (both APIs), or, without NCCL, an `Err` that says how to get it. With
/// `CUDAJIT_EXPECT_NCCL=1` (the GPU machine's run) NCCL must be found.
#[test]
fn nccl_is_found_or_refused_with_a_hint_on_a_gpu() {
    let Some(gpu) = Device::all().ok().and_then(|g| g.into_iter().next()) else {
        eprintln!("multi_device: no GPU here; NCCL is not loaded (skipped)");
        return;
    };
    let expect = std::env::var("CUDAJIT_EXPECT_NCCL").is_ok_and(|v| v == "1");
    match cudajit::nccl_version() {
        Err(error) => {
            assert!(!expect, "NCCL expected: {error}");
            let text = error.to_string();
            assert!(text.contains(cudajit::NCCL_PATH_VARIABLE), "{text}");
            assert!(Communicators::new(std::slice::from_ref(&gpu)).is_err());
        }
        Ok((major, minor, _)) => {
            assert!(major == 2 && minor >= 18, "NCCL {major}.{minor}");
            let comms = Communicators::new(std::slice::from_ref(&gpu)).unwrap();
            let mut rng = common::Rng::fresh("nccl one rank");
            let data = rng.vec_f32(4096, -1.0, 1.0);
            let mut bufs = vec![gpu.to_device(&data).unwrap()];
            comms.all_reduce(&mut bufs, ReduceOp::Sum).unwrap();
            assert_eq!(bufs[0].to_host().unwrap(), data);
            let comm = Communicator::join(&gpu, &UniqueId::new().unwrap(), 0, 1).unwrap();
            let mut recv = gpu.to_device(&vec![f32::NAN; 4096]).unwrap();
            comm.all_gather(&bufs[0], &mut recv).unwrap();
            assert_eq!(recv.to_host().unwrap(), data);
        }
    }
}
