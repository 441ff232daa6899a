//! Issue 22 §1: one device used by many threads at once. Each panic reaches exactly the
//! launch (or the synchronisation of the thread and stream) that caused it, whatever
//! other threads do meanwhile, and `Device::reset` in one thread is safe while others
//! launch. These run under the default parallel harness, beside every other test of
//! the binary: the suite was documented to run with `--test-threads=1`, and that is
//! how cross-thread misrouting and the reset's SIGSEGV stayed hidden.

use std::sync::{Arc, Barrier};

use cudajit::prelude::*;

use super::fill_index;

/// The length in a `fill_index` panic's message ("the len is N but ...").
fn len_in(error: &cudajit::Error) -> Option<usize> {
    match error {
        cudajit::Error::KernelPanic { message, .. } => message
            .strip_prefix("index out of bounds: the len is ")?
            .split(' ')
            .next()?
            .parse()
            .ok(),
        _ => None,
    }
}

/// A panic of thread A's launches (on its own stream, and on the default stream) is
/// A's alone: thread B's device-wide synchronisation and default-stream copy, made
/// while A's panics are waiting to be reported, are `Ok`; A's own stream
/// synchronisation and copy are the `Err`s. Deterministic (barriers order the steps),
/// and it runs on the simulator too, so a machine without a GPU catches misrouting.
#[test]
fn another_threads_device_sync_never_takes_my_panic() {
    let device = match cudajit::Device::default() {
        Ok(device) => device,
        Err(e) => {
            skip!("no device ({e})");
            return;
        }
    };
    let rounds = if device.is_simulator() { 4 } else { 200 };
    // Three steps a round; a failure is recorded, never a panic before a step, so
    // that the other thread is not left waiting: both stop after the round.
    let step = Arc::new(Barrier::new(2));
    let failures = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let fail = |failures: &std::sync::Mutex<Vec<String>>, what: String| {
        failures.lock().unwrap().push(what);
    };
    let panicking = {
        let (device, step, failures) = (device.clone(), step.clone(), failures.clone());
        std::thread::spawn(move || {
            let stream = device.new_stream().unwrap();
            for round in 0..rounds {
                // Shorter than the grid: thread `len` and those after it panic.
                let len = 100 + round % 150;
                let launched = (|| -> cudajit::Result<_> {
                    let mut on_stream = device.zeros::<u32>(len)?;
                    let mut on_default = device.zeros::<u32>(len + 1)?;
                    launch!(fill_index[1, 256, stream](&mut on_stream, 0))?;
                    launch!(fill_index[1, 256](&mut on_default, 0))?;
                    // Both kernels have run (events wait without reporting panics).
                    Event::record(&stream)?.synchronize()?;
                    Event::record(&device.default_stream())?.synchronize()?;
                    Ok((on_stream, on_default))
                })();
                step.wait(); // B synchronises the device and copies now
                step.wait();
                match launched {
                    Err(e) => fail(&failures, format!("round {round}: A's launches: {e}")),
                    Ok((_on_stream, on_default)) => {
                        match stream.synchronize() {
                            Err(e) if len_in(&e) == Some(len) => {}
                            other => fail(
                                &failures,
                                format!("round {round}: A's stream sync: {other:?}"),
                            ),
                        }
                        match on_default.to_host() {
                            Err(e) if len_in(&e) == Some(len + 1) => {}
                            other => fail(
                                &failures,
                                format!("round {round}: A's default-stream copy: {other:?}"),
                            ),
                        }
                        if let Err(e) = stream.synchronize().and(device.synchronize()) {
                            fail(&failures, format!("round {round}: left over: {e}"));
                        }
                    }
                }
                step.wait();
                if !failures.lock().unwrap().is_empty() {
                    break;
                }
            }
        })
    };
    let correct = {
        let (device, step, failures) = (device.clone(), step.clone(), failures.clone());
        std::thread::spawn(move || {
            for round in 0..rounds {
                step.wait();
                let got = (|| -> cudajit::Result<Vec<u32>> {
                    let mut mine = device.zeros::<u32>(256)?;
                    launch!(fill_index[1, 256](&mut mine, 3))?;
                    device.synchronize()?;
                    mine.to_host()
                })();
                match got {
                    Ok(got) if got.iter().enumerate().all(|(i, &v)| v == i as u32 + 3) => {}
                    Ok(_) => fail(&failures, format!("round {round}: B's values are wrong")),
                    Err(e) => fail(&failures, format!("round {round}: B got an Err: {e}")),
                }
                step.wait();
                step.wait();
                if !failures.lock().unwrap().is_empty() {
                    break;
                }
            }
        })
    };
    correct.join().unwrap();
    panicking.join().unwrap();
    let failures = failures.lock().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A stream's panic reaches that stream's synchronisation even while another thread
/// synchronises the whole device in a loop (which must never see it).
#[test]
fn a_streams_panic_is_not_stolen_by_a_device_sync_loop() {
    let device = match cudajit::Device::default() {
        Ok(device) => device,
        Err(e) => {
            skip!("no device ({e})");
            return;
        }
    };
    let rounds = if device.is_simulator() { 6 } else { 500 };
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let syncs = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let syncer = {
        let (device, done, syncs) = (device.clone(), done.clone(), syncs.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                device.synchronize().unwrap();
                syncs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        })
    };
    // The rounds start once the loop is running: on the simulator six rounds can end
    // before a freshly spawned thread is first scheduled, and then nothing was tested.
    while syncs.load(std::sync::atomic::Ordering::Relaxed) == 0 {
        std::thread::yield_now();
    }
    let stream = device.new_stream().unwrap();
    for round in 0..rounds {
        let len = 1 + round % 200;
        let mut dev = device.zeros::<u32>(len).unwrap();
        launch!(fill_index[1, 256, stream](&mut dev, 0)).unwrap();
        let err = stream.synchronize().unwrap_err();
        assert_eq!(len_in(&err), Some(len), "round {round}: {err}");
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    syncer.join().unwrap();
}

/// Issue 22's bar: 8 threads launch the same kernel (half of the launches panicking)
/// while a 9th resets the device, 100 times: no crash, every panicking launch `Err`
/// with its own length, every correct launch `Ok` with the right values.
#[test]
fn reset_while_eight_threads_launch_the_same_kernel() {
    let device = require_real_gpu!();
    // Its resets would make the objects of the tests beside it stale.
    if super::in_child_process("threads::reset_while_eight_threads_launch_the_same_kernel") {
        return;
    }
    let started = std::time::Instant::now();
    const ROUNDS: usize = 100;
    const LAUNCHES: usize = 6;
    let mut rng = super::fresh_rng();
    for round in 0..ROUNDS {
        let start = Arc::new(Barrier::new(9));
        let launchers: Vec<_> = (0..8u32)
            .map(|t| {
                let start = start.clone();
                let mut rng = fastrand::Rng::with_seed(rng.u64(..));
                std::thread::spawn(move || {
                    start.wait();
                    for k in 0..LAUNCHES {
                        let panics = (t as usize + k) % 2 == 0;
                        let len = if panics {
                            1 + (rng.u64(..) % 255) as usize
                        } else {
                            256
                        };
                        let mut host = vec![0u32; len];
                        let got = launch!(fill_index[1, 256](&mut host, t));
                        match (panics, got) {
                            (true, Err(e)) => assert_eq!(
                                len_in(&e),
                                Some(len),
                                "round {round}, thread {t}: another launch's panic: {e}"
                            ),
                            (true, Ok(())) => {
                                panic!("round {round}, thread {t}: a panicking launch was Ok")
                            }
                            (false, Err(e)) => {
                                panic!("round {round}, thread {t}: a correct launch: {e}")
                            }
                            (false, Ok(())) => assert!(
                                host.iter().enumerate().all(|(i, &v)| v == i as u32 + t),
                                "round {round}, thread {t}"
                            ),
                        }
                    }
                })
            })
            .collect();
        let resetter = {
            let (device, start) = (device.clone(), start.clone());
            let pause = rng.u64(..) % 300;
            std::thread::spawn(move || {
                start.wait();
                std::thread::sleep(std::time::Duration::from_micros(pause));
                device.reset().unwrap();
            })
        };
        resetter.join().unwrap();
        for t in launchers {
            t.join().unwrap();
        }
    }
    println!(
        "measured: {ROUNDS} resets beside 8 launching threads in {:.2} s",
        started.elapsed().as_secs_f64()
    );
}
