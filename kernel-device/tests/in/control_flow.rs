// Loops and control flow: for (exclusive, inclusive to MAX), while, loop with break
// value, labelled break/continue, if/else as expressions, early return, short-circuit.

#[device]
fn clamp_i(x: i32, lo: i32, hi: i32) -> i32 {
    if x < lo {
        return lo;
    }
    if x > hi { hi } else { x }
}

#[kernel]
fn control_flow(out: &mut [i32], n: u32, flag: bool) {
    let t = thread_idx().x;
    if t != 0 {
        return;
    }
    let mut acc = 0i32;
    for k in 0..n {
        if k % 3 == 0 {
            continue;
        }
        acc += k as i32;
        if acc > 1000 {
            break;
        }
    }
    let mut count = 0u32;
    for v in 250u8..=u8::MAX {
        count += v as u32;
    }
    let mut j = 0usize;
    while j < out.len() && flag {
        out[j] = acc;
        j += 1;
    }
    let found = 'search: loop {
        'rows: for a in 0..10 {
            for b in 0..10 {
                if b > a {
                    continue 'rows;
                }
                if a * b == 42 {
                    break 'search a * 100 + b;
                }
            }
        }
        break -1;
    };
    let sign = if found < 0 { -1 } else if found == 0 { 0 } else { 1 };
    let block_value = {
        let twice = found * 2;
        twice + sign
    };
    out[0] = clamp_i(block_value, -5, 5000) + count as i32;
}
