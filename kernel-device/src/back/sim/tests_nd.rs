//! N-d array parameters (`front::nd`) on the simulator: the lowered slice, offset,
//! shape and strides address the right elements for any strides, and an index past an
//! axis panics naming that axis.

use super::*;

fn usize_arg(v: usize) -> Arg {
    Arg::Scalar {
        ty: ScalarType::Usize,
        bits: v as u64,
    }
}

fn isize_arg(v: isize) -> Arg {
    Arg::Scalar {
        ty: ScalarType::Isize,
        bits: v as i64 as u64,
    }
}

const TRANSPOSE_ADD: &str = r#"
#[kernel]
fn k(a: &Nd<f32, 2>, out: &mut Nd<f32, 2>) {
    let i = grid(1);
    let shape = out.shape();
    let (rows, cols) = (shape[0], shape[1]);
    if i < rows * cols {
        let (r, c) = (i / cols, i % cols);
        out[(r, c)] = a[(r, c)] + 1.0;
    }
}
"#;

#[test]
fn a_transposed_nd_view_reads_through_its_strides() {
    let m = module(TRANSPOSE_ADD, "k");
    let mut rng = Rng::fresh();
    let (rows, cols) = (5usize, 7usize);
    // `base` is cols x rows row-major; `a` is its transpose (strides 1, rows).
    let base: Vec<f32> = (0..rows * cols).map(|_| rng.f32()).collect();
    let (ba, bo) = (buffer_of(&base), buffer_of(&vec![f32::NAN; rows * cols]));
    let args = [
        slice(ScalarType::F32, &ba, rows * cols, false),
        usize_arg(0),
        usize_arg(rows),
        usize_arg(cols),
        isize_arg(1),
        isize_arg(rows as isize),
        slice(ScalarType::F32, &bo, rows * cols, true),
        usize_arg(0),
        usize_arg(rows),
        usize_arg(cols),
        isize_arg(cols as isize),
        isize_arg(1),
    ];
    run(&m, "k", &shape(1, 64), &args, &Options::default()).expect("runs");
    let out: Vec<f32> = read_back(&bo, rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(out[r * cols + c], base[c * rows + r] + 1.0, "({r}, {c})");
        }
    }
}

#[test]
fn an_index_past_an_axis_panics_naming_the_axis() {
    let src = r#"
#[kernel]
fn k(a: &mut Nd<i32, 3>, i: usize, j: usize, l: usize) {
    a[(i, j, l)] = 1;
}
"#;
    let m = module(src, "k");
    let b = buffer_of(&[0i32; 24]);
    let nd = |i: usize, j: usize, l: usize| {
        vec![
            slice(ScalarType::I32, &b, 24, true),
            usize_arg(0),
            usize_arg(2),
            usize_arg(3),
            usize_arg(4),
            isize_arg(12),
            isize_arg(4),
            isize_arg(1),
            usize_arg(i),
            usize_arg(j),
            usize_arg(l),
        ]
    };
    for (idx, want) in [
        (
            (2, 0, 0),
            "index out of bounds: axis 0 has length 2 but the index is 2",
        ),
        (
            (1, 3, 0),
            "index out of bounds: axis 1 has length 3 but the index is 3",
        ),
        (
            (0, 0, 9),
            "index out of bounds: axis 2 has length 4 but the index is 9",
        ),
    ] {
        match run(
            &m,
            "k",
            &shape(1, 1),
            &nd(idx.0, idx.1, idx.2),
            &Options::default(),
        ) {
            Err(Fault::Panic { message, .. }) => assert_eq!(message, want),
            other => panic!("{idx:?}: expected a panic, got {other:?}"),
        }
    }
    run(&m, "k", &shape(1, 1), &nd(1, 2, 3), &Options::default()).expect("in bounds");
    let out: Vec<i32> = read_back(&b, 24);
    assert_eq!(out[23], 1);
    assert_eq!(out.iter().sum::<i32>(), 1);
}
