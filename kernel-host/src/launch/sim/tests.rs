//! The simulated device without the interpreter: options from the environment, the
//! occupancy rule, faults as errors, arrays, streams and events.

use super::fault_error;
use crate::device::Device;
use crate::executor::sim::*;
use crate::{Backend, DeviceArray, Event, SimOptions};
use kernel_device::back::sim::{AccessKind, Fault, LaunchShape, Site, ThreadId};

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

#[test]
fn options_come_from_the_environment() {
    assert_eq!(options_from_env(env(&[])).unwrap(), SimOptions::default());
    let options = options_from_env(env(&[
        (SEED_VARIABLE, "18446744073709551615"),
        (SCHEDULES_VARIABLE, " 8 "),
        (DETECT_VARIABLE, "0"),
        (WORKERS_VARIABLE, "2"),
    ]))
    .unwrap();
    assert_eq!(
        options,
        SimOptions {
            detect: false,
            seed: u64::MAX,
            schedules: 8,
            workers: 2,
            prints: None, // print
        }
    );
    assert!(
        options_from_env(env(&[(DETECT_VARIABLE, "on")]))
            .unwrap()
            .detect
    );
}

#[test]
fn bad_options_name_the_variable() {
    for (name, value, expected) in [
        (SEED_VARIABLE, "-1", "CUDAJIT_SIM_SEED=\"-1\" is not a seed"),
        (
            SCHEDULES_VARIABLE,
            "0",
            "CUDAJIT_SIM_SCHEDULES=\"0\" is not a count of 1 or more",
        ),
        (
            DETECT_VARIABLE,
            "maybe",
            "CUDAJIT_SIM_DETECT=\"maybe\" is not 0 or 1",
        ),
        (
            WORKERS_VARIABLE,
            "all",
            "CUDAJIT_SIM_WORKERS=\"all\" is not a thread count",
        ),
    ] {
        let error = options_from_env(env(&[(name, value)]))
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{error}");
    }
}

#[test]
fn occupancy_follows_sm90() {
    // 2048 threads and 32 blocks per multiprocessor.
    assert_eq!(blocks_per_multiprocessor(256, 0), 8);
    assert_eq!(blocks_per_multiprocessor(1024, 0), 2);
    assert_eq!(blocks_per_multiprocessor(32, 0), 32);
    assert_eq!(blocks_per_multiprocessor(33, 0), 32);
    assert_eq!(blocks_per_multiprocessor(1, 0), 32);
    // 228 KiB of shared memory, 1 KiB reserved per block.
    assert_eq!(blocks_per_multiprocessor(64, 100 * 1024), 2);
    assert_eq!(blocks_per_multiprocessor(64, 227 * 1024), 1);
    assert_eq!(blocks_per_multiprocessor(64, 228 * 1024), 0);
    assert_eq!(blocks_per_multiprocessor(64, u32::MAX), 0);
}

fn site(line: u32) -> Site {
    Site {
        file: "tests/k.rs".into(),
        line,
        column: 9,
    }
}

#[test]
fn a_panic_is_the_gpus_kernel_panic_with_linear_indices() {
    let shape = LaunchShape {
        grid: [4, 3, 2],
        block: [8, 4, 2],
        dynamic_shared_bytes: 0,
    };
    let fault = Fault::Panic {
        message: "index out of bounds: the len is 8 but the index is 9".into(),
        site: site(14),
        thread: ThreadId {
            block: [1, 2, 1],
            thread: [3, 1, 1],
        },
    };
    let error = fault_error("k", &shape, fault);
    // block 1 + 2*4 + 1*4*3 = 21; thread 3 + 1*8 + 1*8*4 = 43.
    assert_eq!(
        error.to_string(),
        "kernel `k` panicked at tests/k.rs:14:9: index out of bounds: the len is 8 but \
         the index is 9 (block 21, thread 43)"
    );
}

#[test]
fn other_faults_keep_their_sentence_and_name_the_kernel() {
    let shape = LaunchShape {
        grid: [2, 1, 1],
        block: [64, 1, 1],
        dynamic_shared_bytes: 0,
    };
    let who = |t| ThreadId {
        block: [0, 0, 0],
        thread: [t, 0, 0],
    };
    let fault = Fault::Race {
        location: "shared `tile`[3]".into(),
        first: kernel_device::back::sim::Access {
            thread: who(3),
            kind: AccessKind::Write,
            site: site(10),
        },
        second: kernel_device::back::sim::Access {
            thread: who(35),
            kind: AccessKind::Read,
            site: site(12),
        },
    };
    let sentence = fault.to_string();
    let error = fault_error("reduce", &shape, fault.clone());
    assert_eq!(
        error.to_string(),
        format!("kernel `reduce` failed on the CPU simulator: {sentence}")
    );
    let text = error.to_string();
    for part in [
        "block (0, 0, 0) thread (3, 0, 0)",
        "block (0, 0, 0) thread (35, 0, 0)",
        "tests/k.rs:10:9",
        "tests/k.rs:12:9",
        "shared `tile`[3]",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    match error {
        crate::Error::Simulator { fault: got, .. } => assert_eq!(*got, fault),
        other => panic!("{other:?}"),
    }
}

/// Fresh random values for a round trip (a hash of the clock: no dependency).
fn random_values(n: usize) -> Vec<i64> {
    let mut x = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos() as u64
        | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i64
        })
        .collect()
}

#[test]
fn arrays_round_trip_through_simulated_memory() {
    let device = Device::simulator_with(SimOptions::default());
    assert_eq!(device.backend(), Backend::Simulator);
    assert_eq!(device.limits(), &SIMULATED_LIMITS);
    let values = random_values(1000);
    let array = device.to_device(&values).unwrap();
    assert_eq!(array.len(), 1000);
    assert_eq!(array.device_ptr(), 0);
    assert_eq!(array.to_host().unwrap(), values);
    let mut back = vec![i64::MIN; 1000];
    array.copy_to_host(&mut back).unwrap();
    assert_eq!(back, values);

    let mut zeros = DeviceArray::<f64>::zeros_on(&device, 77).unwrap();
    assert!(zeros.to_host().unwrap().iter().all(|&v| v == 0.0));
    let floats: Vec<f64> = values.iter().take(77).map(|&v| v as f64 * 0.5).collect();
    zeros.copy_from_host(&floats).unwrap();
    assert_eq!(zeros.to_host().unwrap(), floats);
    let error = zeros.copy_from_host(&floats[..3]).unwrap_err().to_string();
    assert!(
        error.contains("holds 77 elements but the host slice holds 3"),
        "{error}"
    );

    let empty = device.to_device::<u8>(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.to_host().unwrap(), Vec::<u8>::new());
    let flags = device.to_device(&[true, false, true]).unwrap();
    assert_eq!(flags.to_host().unwrap(), vec![true, false, true]);
}

#[test]
fn streams_and_events_work_on_the_simulator() {
    let device = Device::simulator_with(SimOptions::default());
    let stream = device.new_stream().unwrap();
    assert!(stream.cu_stream().is_null());
    stream.synchronize().unwrap();
    device.synchronize().unwrap();
    let start = Event::record(&stream).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let end = Event::record(&stream).unwrap();
    end.synchronize().unwrap();
    let ms = start.elapsed_ms(&end).unwrap();
    assert!((15.0..10_000.0).contains(&ms), "{ms} ms");
    let never = Event::new(&device).unwrap();
    assert!(start.elapsed_ms(&never).is_err());
    assert!(device.attribute(crate::DeviceAttribute::WarpSize).is_err());
    assert!(device.cuda_context().is_none());
}

#[test]
fn a_deferred_fault_is_reported_once_by_the_next_synchronisation() {
    let device = Device::simulator_with(SimOptions::default());
    let faults = device.default_faults();
    let array = device.to_device(&[1u32, 2, 3]).unwrap();
    faults.defer(sim_error(1));
    faults.defer(sim_error(2));
    // The first fault wins; a copy to the host reports it, then it is gone.
    let got = array.to_host().unwrap_err().to_string();
    assert!(got.contains("kernel `k1`"), "{got}");
    device.synchronize().unwrap();
    faults.defer(sim_error(3));
    let got = device
        .default_stream()
        .synchronize()
        .unwrap_err()
        .to_string();
    assert!(got.contains("kernel `k3`"), "{got}");
    assert_eq!(array.to_host().unwrap(), vec![1, 2, 3]);
}

fn sim_error(n: u32) -> crate::Error {
    crate::Error::Simulator {
        kernel: format!("k{n}"),
        fault: Box::new(Fault::Deadlock("all warps wait".into())),
    }
}

/// A fault of a launch on one stream is that stream's: another stream's
/// synchronisation and a copy on the default stream do not see it; the device-wide
/// synchronisation of the thread that launched does, once.
#[test]
fn a_deferred_fault_belongs_to_its_stream() {
    let device = Device::simulator_with(SimOptions::default());
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let array = device.to_device(&[5u8]).unwrap();
    a.faults().unwrap().defer(sim_error(1));
    b.faults().unwrap().defer(sim_error(2));
    let got = b.synchronize().unwrap_err().to_string();
    assert!(got.contains("kernel `k2`"), "{got}");
    assert!(b.synchronize().is_ok());
    assert_eq!(array.to_host().unwrap(), vec![5]);
    let got = a.synchronize().unwrap_err().to_string();
    assert!(got.contains("kernel `k1`"), "{got}");
    a.faults().unwrap().defer(sim_error(3));
    let got = device.synchronize().unwrap_err().to_string();
    assert!(got.contains("kernel `k3`"), "{got}");
    device.synchronize().unwrap();
    a.synchronize().unwrap();
}

#[test]
fn simulated_devices_are_distinct_and_say_what_they_are() {
    let a = Device::simulator_with(SimOptions::default());
    let b = Device::simulator_with(SimOptions {
        seed: 7,
        schedules: 4,
        detect: false,
        workers: 1,
        prints: None, // print
    });
    assert_ne!(a, b);
    assert_eq!(a, a.clone());
    assert_eq!(
        b.to_string(),
        "the CPU simulator (sm_90 limits, race detection off, seed 7, 4 schedules)"
    );
    assert_eq!(b.sim_options().unwrap().seed, 7);
    b.set_sim_options(SimOptions::default()).unwrap();
    assert_eq!(b.sim_options().unwrap(), SimOptions::default());
    assert_eq!(b.compute_capability(), (9, 0));
    assert_eq!(b.arch(), "compute_90");
}
