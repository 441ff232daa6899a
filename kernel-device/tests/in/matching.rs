// match, if let, while let and matches!: if chains over the scrutinee evaluated once
// (one `switch`-free compare chain per match; the last arm untested).

#[device]
fn bucket(x: i32) -> i32 {
    match x {
        i32::MIN..=-1 => -1,
        0 => 0,
        1 | 2 | 3 => 1,
        n @ 4..=9 => n * 2,
        n if n % 2 == 0 => 20,
        _ => 21,
    }
}

#[kernel]
fn matching(xs: &[i32], out: &mut [i32], flag: bool) {
    let i = grid(1);
    if i >= xs.len() {
        return;
    }
    let x = xs[i];
    let pair = match (x % 3, flag) {
        (0, true) => 1,
        (r, false) if r < 0 => 2,
        (1 | 2, _) => 3,
        _ => 4,
    };
    let mut v = x as u32;
    let mut steps = 0;
    while let 2.. = v {
        v /= 2;
        steps += 1;
    }
    let small = if let 0..=9 = x { 1 } else { 0 };
    out[i] = bucket(x) + pair * 100 + steps * 1000 + small + matches!(x, 7 | 11) as i32;
}
