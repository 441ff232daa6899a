//! The record layout: bytes as the module documentation draws them, round trips of
//! random records, overflow with the exact dropped count, and print order.

use half::f16;
use num_complex::Complex;

use super::super::record::{DecodeError, CAPACITY_OFFSET, CURSOR_OFFSET, DROPPED_OFFSET};
use super::*;

fn format_of(string: &str, types: Vec<Type>, destination: Destination) -> PrintFormat {
    let explicit = ExplicitArguments {
        positional: types.len(),
        named: vec![],
    };
    PrintFormat {
        program: parse(string, &explicit).unwrap(),
        argument_types: types,
        destination,
    }
}

fn u32_at(buffer: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buffer[at..at + 4].try_into().unwrap())
}

fn u64_at(buffer: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buffer[at..at + 8].try_into().unwrap())
}

#[test]
fn record_bytes_are_as_documented() {
    let types = vec![u8::ty(), f64::ty(), bool::ty(), Point::ty(), u16::ty()];
    let layout = RecordLayout::new(&types).unwrap();
    // u8 at 0; f64 at 8; bool at 16 (4-aligned); Point (align 4) at 20; u16 at 28; 30 → 32.
    assert_eq!(layout.offsets, vec![0, 8, 16, 20, 28]);
    assert_eq!(layout.payload_len, 32);
    assert_eq!(layout.record_bytes(), 56);

    let mut buffer = vec![0xEEu8; BUFFER_HEADER_BYTES + 100];
    reset_buffer(&mut buffer).unwrap();
    assert_eq!(u64_at(&buffer, CAPACITY_OFFSET), 100);
    let values = [
        0xABu8.to_value(),
        (-2.5f64).to_value(),
        true.to_value(),
        Point { x: 1.0, y: -0.0 }.to_value(),
        0x1234u16.to_value(),
    ];
    let origin = RecordOrigin {
        block: 0x1_0000_0002,
        thread: 1023,
    };
    assert!(append_record(&mut buffer, 9, origin, &layout, &values));
    assert_eq!(u64_at(&buffer, CURSOR_OFFSET), 56);
    let r = BUFFER_HEADER_BYTES;
    assert_eq!(u32_at(&buffer, r), 9);
    assert_eq!(u32_at(&buffer, r + 4), 32);
    assert_eq!(u64_at(&buffer, r + 8), 0x1_0000_0002);
    assert_eq!(u32_at(&buffer, r + 16), 1023);
    let p = r + RECORD_HEADER;
    assert_eq!(buffer[p], 0xAB);
    assert_eq!(&buffer[p + 8..p + 16], &(-2.5f64).to_le_bytes());
    assert_eq!(buffer[p + 16], 1);
    assert_eq!(&buffer[p + 20..p + 24], &1.0f32.to_le_bytes());
    assert_eq!(&buffer[p + 24..p + 28], &(-0.0f32).to_le_bytes());
    assert_eq!(&buffer[p + 28..p + 30], &[0x34, 0x12]);
    // Padding is written as zeros, so equal values give equal records.
    assert_eq!(&buffer[p + 1..p + 8], &[0; 7]);
    // The rest of the data area is untouched.
    assert!(buffer[r + 56..].iter().all(|&b| b == 0xEE));
}

const RECORD_HEADER: usize = super::super::record::RECORD_HEADER_BYTES;

/// Formats of assorted argument types, and a random value of each.
fn assorted_formats() -> FormatTable {
    let mut table = FormatTable::default();
    let formats = [
        format_of("{} {}\n", vec![i8::ty(), bool::ty()], Destination::Stdout),
        format_of("{:?}\n", vec![<[u16; 3]>::ty()], Destination::Stdout),
        format_of(
            "{} {:e}\n",
            vec![f16::ty(), Complex::<f32>::ty()],
            Destination::Stderr,
        ),
        format_of(
            "{:#?} {}\n",
            vec![Mixed::ty(), u64::ty()],
            Destination::Stdout,
        ),
        format_of("no arguments\n", vec![], Destination::Stdout),
    ];
    for f in formats {
        table.push(f);
    }
    table
}

fn random_values(rng: &mut fastrand::Rng, format_id: u32) -> Vec<Value> {
    match format_id {
        0 => vec![rng.i8(..).to_value(), rng.bool().to_value()],
        1 => vec![[rng.u16(..), rng.u16(..), rng.u16(..)].to_value()],
        2 => vec![
            f16::from_bits(rng.u16(..)).to_value(),
            Complex::new(f32::from_bits(rng.u32(..)), rng.f32()).to_value(),
        ],
        3 => vec![
            Mixed {
                flag: rng.bool(),
                n: rng.i64(..),
                bytes: [rng.u8(..), 0, 255],
                at: Point {
                    x: f32::from_bits(rng.u32(..)),
                    y: 0.5,
                },
                z: Complex::new(f64::from_bits(rng.u64(..)), -1.0),
            }
            .to_value(),
            rng.u64(..).to_value(),
        ],
        _ => vec![],
    }
}

/// The test's model of what a thread appends: format id, origin, values.
type Appended = (u32, RecordOrigin, Vec<Value>);

fn append_all(buffer: &mut [u8], table: &FormatTable, records: &[Appended]) -> Vec<bool> {
    records
        .iter()
        .map(|(id, origin, values)| {
            let layout = RecordLayout::new(table.argument_types(*id).unwrap()).unwrap();
            append_record(buffer, *id, *origin, &layout, values)
        })
        .collect()
}

fn random_records(rng: &mut fastrand::Rng, table: &FormatTable, count: usize) -> Vec<Appended> {
    (0..count)
        .map(|_| {
            let id = rng.u32(0..table.formats.len() as u32);
            let origin = RecordOrigin {
                block: rng.u64(0..4),
                thread: rng.u32(0..3),
            };
            (id, origin, random_values(rng, id))
        })
        .collect()
}

#[test]
fn random_records_round_trip_bit_for_bit() {
    let mut rng = seeded_rng("random_records_round_trip_bit_for_bit");
    let table = assorted_formats();
    for _ in 0..50 {
        let count = rng.usize(0..60);
        let records = random_records(&mut rng, &table, count);
        let mut buffer = vec![0x5Au8; BUFFER_HEADER_BYTES + 8192];
        reset_buffer(&mut buffer).unwrap();
        assert!(append_all(&mut buffer, &table, &records)
            .iter()
            .all(|&ok| ok));
        let decoded = decode(&buffer, |id| table.argument_types(id)).unwrap();
        assert_eq!(decoded.dropped_records, 0);
        assert_eq!(decoded.records.len(), records.len());
        // Writing the decoded values again gives the same bytes: NaN payloads and
        // -0.0 included, which `==` on values could not show.
        let again: Vec<Appended> = decoded
            .records
            .iter()
            .map(|r| (r.format_id, r.origin, r.values.clone()))
            .collect();
        let mut copy = vec![0x5Au8; buffer.len()];
        reset_buffer(&mut copy).unwrap();
        append_all(&mut copy, &table, &again);
        assert_eq!(copy, buffer);
        for (record, (id, origin, _)) in decoded.records.iter().zip(&records) {
            assert_eq!((record.format_id, record.origin), (*id, *origin));
        }
    }
}

#[test]
fn overflow_reports_the_exact_dropped_count() {
    let mut rng = seeded_rng("overflow_reports_the_exact_dropped_count");
    let table = assorted_formats();
    for _ in 0..200 {
        let count = rng.usize(1..40);
        let records = random_records(&mut rng, &table, count);
        let capacity = rng.usize(0..1500);
        let mut buffer = vec![0u8; BUFFER_HEADER_BYTES + capacity];
        reset_buffer(&mut buffer).unwrap();
        let written = append_all(&mut buffer, &table, &records);
        // Independently: a record is kept when its reservation ends within capacity.
        let mut end = 0u64;
        let expected_kept: Vec<bool> = records
            .iter()
            .map(|(id, ..)| {
                end += RecordLayout::new(table.argument_types(*id).unwrap())
                    .unwrap()
                    .record_bytes();
                end <= capacity as u64
            })
            .collect();
        assert_eq!(written, expected_kept);
        let kept = expected_kept.iter().filter(|&&k| k).count();
        let decoded = decode(&buffer, |id| table.argument_types(id)).unwrap();
        assert_eq!(decoded.records.len(), kept);
        assert_eq!(decoded.dropped_records, (records.len() - kept) as u64);
        assert_eq!(
            u64_at(&buffer, DROPPED_OFFSET),
            (records.len() - kept) as u64
        );
    }
}

#[test]
fn a_reused_buffer_never_shows_the_last_launchs_records() {
    let mut table = FormatTable::default();
    let small = table.push(format_of("{}\n", vec![i32::ty()], Destination::Stdout));
    let large = table.push(format_of(
        "{:?}\n",
        vec![<[f64; 40]>::ty()],
        Destination::Stdout,
    ));
    let small_layout = RecordLayout::new(table.argument_types(small).unwrap()).unwrap();
    let large_layout = RecordLayout::new(table.argument_types(large).unwrap()).unwrap();
    let mut buffer = vec![0u8; BUFFER_HEADER_BYTES + 10 * 32];
    reset_buffer(&mut buffer).unwrap();
    let origin = RecordOrigin {
        block: 0,
        thread: 0,
    };
    for i in 0..10i32 {
        assert!(append_record(
            &mut buffer,
            small,
            origin,
            &small_layout,
            &[i.to_value()]
        ));
    }
    // Next launch: one small record, then a large one that does not fit. The old
    // records behind the first lie whole in the data area and must not be read.
    reset_buffer(&mut buffer).unwrap();
    assert!(append_record(
        &mut buffer,
        small,
        origin,
        &small_layout,
        &[42i32.to_value()]
    ));
    assert!(!append_record(
        &mut buffer,
        large,
        origin,
        &large_layout,
        &[[1.0f64; 40].to_value()]
    ));
    assert!(!append_record(
        &mut buffer,
        small,
        origin,
        &small_layout,
        &[7i32.to_value()]
    ));
    let decoded = decode(&buffer, |id| table.argument_types(id)).unwrap();
    let output = render_output(&table, decoded, PrintOrder::Arrival).unwrap();
    assert_eq!(output.stdout, "42\n");
    assert_eq!(output.dropped_records, 2);
    assert_eq!(
        output.dropped_notice().unwrap(),
        "cudajit: 2 print records were dropped: the kernel's print buffer was full (give the \
         launch a larger print buffer)"
    );
}

#[test]
fn thread_order_sorts_by_block_then_thread_keeping_each_threads_lines() {
    let mut rng = seeded_rng("thread_order_sorts_by_block_then_thread_keeping_each_threads_lines");
    let mut table = FormatTable::default();
    let line = table.push(format_of(
        "block {} thread {} line {}\n",
        vec![u64::ty(), u32::ty(), u32::ty()],
        Destination::Stdout,
    ));
    let warning = table.push(format_of("warn {}\n", vec![u32::ty()], Destination::Stderr));
    // Each of 6 blocks × 5 threads prints 3 lines; threads interleave at random, but
    // a thread's own lines are appended in order, as on the device.
    let mut pending: Vec<(u64, u32, u32)> = (0..6u64)
        .flat_map(|b| (0..5u32).map(move |t| (b, t, 0)))
        .collect();
    let mut records: Vec<Appended> = Vec::new();
    while !pending.is_empty() {
        let i = rng.usize(0..pending.len());
        let (block, thread, n) = pending[i];
        let origin = RecordOrigin { block, thread };
        records.push((
            line,
            origin,
            vec![block.to_value(), thread.to_value(), n.to_value()],
        ));
        if thread == 2 {
            records.push((warning, origin, vec![n.to_value()]));
        }
        if n == 2 {
            pending.swap_remove(i);
        } else {
            pending[i].2 += 1;
        }
    }
    let mut buffer = vec![0u8; BUFFER_HEADER_BYTES + 64 * records.len()];
    reset_buffer(&mut buffer).unwrap();
    append_all(&mut buffer, &table, &records);
    let arrival = render_output(
        &table,
        decode(&buffer, |id| table.argument_types(id)).unwrap(),
        PrintOrder::Arrival,
    )
    .unwrap();
    let sorted = render_output(
        &table,
        decode(&buffer, |id| table.argument_types(id)).unwrap(),
        PrintOrder::Thread,
    )
    .unwrap();
    let mut expected = String::new();
    let mut expected_stderr = String::new();
    for b in 0..6 {
        for t in 0..5 {
            for n in 0..3 {
                expected += &format!("block {b} thread {t} line {n}\n");
                if t == 2 {
                    expected_stderr += &format!("warn {n}\n");
                }
            }
        }
    }
    assert_eq!(sorted.stdout, expected);
    assert_eq!(sorted.stderr, expected_stderr);
    let mut arrival_lines: Vec<&str> = arrival.stdout.lines().collect();
    arrival_lines.sort_unstable();
    let mut expected_lines: Vec<&str> = expected.lines().collect();
    expected_lines.sort_unstable();
    assert_eq!(arrival_lines, expected_lines);
}

#[test]
fn corrupt_buffers_are_errors_not_panics() {
    let mut table = FormatTable::default();
    let id = table.push(format_of("{}", vec![i32::ty()], Destination::Stdout));
    let layout = RecordLayout::new(table.argument_types(id).unwrap()).unwrap();
    let origin = RecordOrigin {
        block: 0,
        thread: 0,
    };
    let mut buffer = vec![0u8; BUFFER_HEADER_BYTES + 64];
    reset_buffer(&mut buffer).unwrap();
    append_record(&mut buffer, id, origin, &layout, &[5i32.to_value()]);
    let types = |id| table.argument_types(id);

    let mut unknown = buffer.clone();
    unknown[BUFFER_HEADER_BYTES] = 3;
    assert_eq!(
        decode(&unknown, types),
        Err(DecodeError::UnknownFormat {
            offset: 0,
            format_id: 3
        })
    );
    let mut wrong_length = buffer.clone();
    wrong_length[BUFFER_HEADER_BYTES + 4] = 16;
    assert!(matches!(
        decode(&wrong_length, types),
        Err(DecodeError::PayloadLength {
            found: 16,
            expected: 8,
            ..
        })
    ));
    let mut overclaimed = buffer.clone();
    overclaimed[CAPACITY_OFFSET] = 200;
    assert!(matches!(
        decode(&overclaimed, types),
        Err(DecodeError::CapacityMismatch { .. })
    ));
    let mut cut = buffer.clone();
    cut[CURSOR_OFFSET] = 20;
    assert_eq!(
        decode(&cut, types),
        Err(DecodeError::Truncated { offset: 0 })
    );
    assert_eq!(decode(&buffer[..8], types), Err(DecodeError::TooSmall(8)));
}

/// The host's share of the bar (2^20 threads each printing a line): decode and
/// render time for 2^20 records. Run in release with
/// `cargo test --release -p kernel-device --lib format_throughput -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check: run it in release"]
fn format_throughput() {
    let mut table = FormatTable::default();
    let id = table.push(format_of(
        "block {} thread {}: x = {:.3}, n = {:#x}\n",
        vec![u64::ty(), u32::ty(), f32::ty(), i32::ty()],
        Destination::Stdout,
    ));
    let layout = RecordLayout::new(table.argument_types(id).unwrap()).unwrap();
    let count = 1usize << 20;
    let mut buffer = vec![0u8; BUFFER_HEADER_BYTES + count * layout.record_bytes() as usize];
    reset_buffer(&mut buffer).unwrap();
    for i in 0..count {
        let origin = RecordOrigin {
            block: (i / 256) as u64,
            thread: (i % 256) as u32,
        };
        let values = [
            origin.block.to_value(),
            origin.thread.to_value(),
            (i as f32 * 0.1).to_value(),
            (i as i32).to_value(),
        ];
        assert!(append_record(&mut buffer, id, origin, &layout, &values));
    }
    let start = std::time::Instant::now();
    let decoded = decode(&buffer, |id| table.argument_types(id)).unwrap();
    let decoded_at = start.elapsed();
    let output = render_output(&table, decoded, PrintOrder::Thread).unwrap();
    let total = start.elapsed();
    assert_eq!(output.stdout.lines().count(), count);
    eprintln!(
        "{count} records, {} MiB of records, {} MiB of text: decode {decoded_at:?}, \
         decode + sort + render {total:?} ({:.0} ns per line)",
        buffer.len() >> 20,
        output.stdout.len() >> 20,
        total.as_nanos() as f64 / count as f64
    );
}
