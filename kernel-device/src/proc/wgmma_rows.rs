//! The wgmma intrinsics' rows (one per shape, input types and form, with their static
//! names), the packs that feed an RS form's A, and the hints for the names that do
//! not exist: the table `proc::intrinsics` chains, from `super`'s rules.

use super::{n_allowed, A_REGISTERS, FORMS, INT8_PAIRS};
use crate::ir::{Intrinsic, ScalarType, WgmmaCombo, WgmmaOp};
use crate::proc::intrinsics::{Effect, Form, IntrinsicDef, Param, Ret, Signature};
use crate::proc::mma::MmaElem;

// The register-level intrinsics: `wgmma_fence()`, `wgmma_commit_group()`,
// `wgmma_wait_group_<N>()`, `wgmma_descriptor(tile, index, swizzle_bytes, leading_bytes,
// stride_bytes) -> u64` and, one row per combination,
// `wgmma_m64n<N>k<K>_f32_<in>[_trans_a|_trans_b|_trans_ab](desc_a, desc_b, scale_d, c..)
// -> (d..)`, `wgmma_m64n<N>k<K>_f32_<in>_rs[_trans_b](a0, a1, a2, a3, desc_b, scale_d,
// c..) -> (d..)` (bf16, f16, tf32) and `wgmma_m64n<N>k32_i32_<a>_<b>(desc_a, desc_b,
// scale_d, c: i32..) -> (d: i32..)`.

const U64: Param = Param::Scalar(ScalarType::U64);
const U32: Param = Param::Scalar(ScalarType::U32);
const F: Param = Param::Scalar(ScalarType::F32);
const I: Param = Param::Scalar(ScalarType::I32);

/// `[desc_a, desc_b, scale_d, c_0 .. c_{L-4}]`, accumulators `acc`.
const fn mma_params<const L: usize>(acc: Param) -> [Param; L] {
    let mut p = [acc; L];
    p[0] = U64;
    p[1] = U64;
    p[2] = U32;
    p
}

/// `[a_0 .. a_3, desc_b, scale_d, c_0 .. c_{L-7}]` (f32 accumulators).
const fn rs_params<const L: usize>() -> [Param; L] {
    let mut p = [F; L];
    let mut i = 0;
    while i < A_REGISTERS {
        p[i] = U32;
        i += 1;
    }
    p[A_REGISTERS] = U64;
    p[A_REGISTERS + 1] = U32;
    p
}

/// The N of the rows cudajit has (the ISA allows every multiple of 8, of 16 above 32
/// for the integers; these are the ones a tile uses, legal for every input type).
pub const ROW_NS: [u16; 8] = [8, 16, 32, 64, 96, 128, 192, 256];

/// The rows of one N: the six forms of bf16 and of f16 ([`FORMS`]), fp8's one, tf32's
/// two ([`TF32_FORMS`]) and the four integer pairs ([`INT8_PAIRS`]).
macro_rules! wgmma_rows {
    ($($n:literal),*) => {
        &[$(
            mma_row($n, MmaElem::BF16, 0, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::BF16, 1, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::BF16, 2, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::BF16, 3, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::BF16, 4, &rs_params::<{ 6 + $n / 2 }>(), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::BF16, 5, &rs_params::<{ 6 + $n / 2 }>(), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::F16, 0, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::F16, 1, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::F16, 2, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::F16, 3, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::F16, 4, &rs_params::<{ 6 + $n / 2 }>(), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::F16, 5, &rs_params::<{ 6 + $n / 2 }>(), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::E4M3, 0, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::Tf32, 0, &mma_params::<{ 3 + $n / 2 }>(F), &[ScalarType::F32; $n / 2]),
            mma_row($n, MmaElem::Tf32, 4, &rs_params::<{ 6 + $n / 2 }>(), &[ScalarType::F32; $n / 2]),
            int_row($n, 0, &mma_params::<{ 3 + $n / 2 }>(I), &[ScalarType::I32; $n / 2]),
            int_row($n, 1, &mma_params::<{ 3 + $n / 2 }>(I), &[ScalarType::I32; $n / 2]),
            int_row($n, 2, &mma_params::<{ 3 + $n / 2 }>(I), &[ScalarType::I32; $n / 2]),
            int_row($n, 3, &mma_params::<{ 3 + $n / 2 }>(I), &[ScalarType::I32; $n / 2]),
        )*]
    };
}

/// The row of shape `n`, `input` and form `FORMS[form]`.
const fn mma_row(
    n: u16,
    input: MmaElem,
    form: usize,
    params: &'static [Param],
    ret: &'static [ScalarType],
) -> IntrinsicDef {
    let (a, b, _) = FORMS[form];
    IntrinsicDef {
        name: mma_name(n, input, form),
        form: Form::Call,
        intrinsic: Intrinsic::Wgmma(WgmmaOp::Mma(WgmmaCombo {
            n,
            input,
            input_b: input,
            a,
            b,
        })),
        sig: Signature {
            types: &[],
            params,
            ret: Ret::Tuple(ret),
        },
        effect: WGMMA_EFFECT,
        nvvm: "",
    }
}

/// The row of shape `n` and the 8-bit integer types `INT8_PAIRS[pair]` (K-major
/// descriptors, i32 accumulators).
const fn int_row(
    n: u16,
    pair: usize,
    params: &'static [Param],
    ret: &'static [ScalarType],
) -> IntrinsicDef {
    let (input, input_b) = INT8_PAIRS[pair];
    IntrinsicDef {
        name: int_name(n, pair),
        form: Form::Call,
        intrinsic: Intrinsic::Wgmma(WgmmaOp::Mma(WgmmaCombo {
            input_b,
            ..WgmmaCombo::ss(n, input)
        })),
        sig: Signature {
            types: &[],
            params,
            ret: Ret::Tuple(ret),
        },
        effect: WGMMA_EFFECT,
        nvvm: "",
    }
}

/// The names of the integer rows (`INT8_PAIRS` spelled out).
const fn int_name(n: u16, pair: usize) -> &'static str {
    macro_rules! names {
        ($($n:literal),*) => {
            match (n, pair) {
                $(
                    ($n, 0) => concat!("wgmma_m64n", $n, "k32_i32_i8_i8"),
                    ($n, 1) => concat!("wgmma_m64n", $n, "k32_i32_i8_u8"),
                    ($n, 2) => concat!("wgmma_m64n", $n, "k32_i32_u8_i8"),
                    ($n, 3) => concat!("wgmma_m64n", $n, "k32_i32_u8_u8"),
                )*
                _ => panic!("no integer wgmma row of that shape"),
            }
        };
    }
    names!(8, 16, 32, 64, 96, 128, 192, 256)
}

/// The names of the rows (const: the table is static), `FORMS`' suffixes spelled out.
const fn mma_name(n: u16, input: MmaElem, form: usize) -> &'static str {
    macro_rules! names {
        ($($n:literal),*) => {
            match (n, input, form) {
                $(
                    ($n, MmaElem::BF16, 0) => concat!("wgmma_m64n", $n, "k16_f32_bf16"),
                    ($n, MmaElem::BF16, 1) => concat!("wgmma_m64n", $n, "k16_f32_bf16_trans_a"),
                    ($n, MmaElem::BF16, 2) => concat!("wgmma_m64n", $n, "k16_f32_bf16_trans_b"),
                    ($n, MmaElem::BF16, 3) => concat!("wgmma_m64n", $n, "k16_f32_bf16_trans_ab"),
                    ($n, MmaElem::BF16, 4) => concat!("wgmma_m64n", $n, "k16_f32_bf16_rs"),
                    ($n, MmaElem::BF16, 5) => concat!("wgmma_m64n", $n, "k16_f32_bf16_rs_trans_b"),
                    ($n, MmaElem::F16, 0) => concat!("wgmma_m64n", $n, "k16_f32_f16"),
                    ($n, MmaElem::F16, 1) => concat!("wgmma_m64n", $n, "k16_f32_f16_trans_a"),
                    ($n, MmaElem::F16, 2) => concat!("wgmma_m64n", $n, "k16_f32_f16_trans_b"),
                    ($n, MmaElem::F16, 3) => concat!("wgmma_m64n", $n, "k16_f32_f16_trans_ab"),
                    ($n, MmaElem::F16, 4) => concat!("wgmma_m64n", $n, "k16_f32_f16_rs"),
                    ($n, MmaElem::F16, 5) => concat!("wgmma_m64n", $n, "k16_f32_f16_rs_trans_b"),
                    ($n, MmaElem::E4M3, 0) => concat!("wgmma_m64n", $n, "k32_f32_e4m3"),
                    ($n, MmaElem::Tf32, 0) => concat!("wgmma_m64n", $n, "k8_f32_tf32"),
                    ($n, MmaElem::Tf32, 4) => concat!("wgmma_m64n", $n, "k8_f32_tf32_rs"),
                )*
                _ => panic!("no wgmma row of that shape"),
            }
        };
    }
    names!(8, 16, 32, 64, 96, 128, 192, 256)
}

/// Why a name that looks like a wgmma is none, for the names a kernel may guess: a
/// transposed or register-A fp8 wgmma, a transposed tf32 or integer one, an integer
/// one with PTX's type names or an f32 accumulator (the hint for the compile error at
/// the call).
pub fn missing_form_hint(name: &str) -> Option<&'static str> {
    let rest = name.strip_prefix("wgmma_m64n")?;
    let tf32 = rest.contains("_tf32");
    if tf32 && rest.contains("_trans") {
        return Some(
            "a tf32 wgmma reads its shared operands K-major only (the PTX ISA transposes 16-bit types only): \
             store the tile K-major (32 f32 of K to a 128-byte row) and call `wgmma_m64n<N>k8_f32_tf32` \
             or `wgmma_m64n<N>k8_f32_tf32_rs`",
        );
    }
    let int8 = ["_i8", "_u8", "_s8"].iter().any(|t| rest.contains(t));
    if int8 && rest.contains("_trans") {
        return Some(
            "an 8-bit integer wgmma reads both operands K-major from shared memory (the PTX ISA transposes \
             16-bit types only): store the tile K-major and call `wgmma_m64n<N>k32_i32_<a>_<b>`",
        );
    }
    let n: Option<u32> = rest.split('k').next().and_then(|n| n.parse().ok());
    if int8 && n.is_some_and(|n| !n_allowed(MmaElem::I8, n)) {
        return Some(
            "the PTX ISA's integer wgmmas have N = 8, 16, 24, 32 and then multiples of 16 up to 256; \
             cudajit has `wgmma_m64n<N>k32_i32_<a>_<b>` for N = 8, 16, 32, 64, 96, 128, 192, 256",
        );
    }
    if int8 && rest.contains("_rs") {
        return Some(
            "cudajit gives the 8-bit integer wgmmas no A from registers: put A in a K-major shared tile \
             and call `wgmma_m64n<N>k32_i32_<a>_<b>(desc_a, desc_b, scale_d, c..)`",
        );
    }
    if int8 && (rest.contains("_s32") || rest.contains("_s8")) {
        return Some(
            "the integer wgmmas use Rust's type names, accumulator first: \
             `wgmma_m64n<N>k32_i32_i8_u8` is PTX's `.s32.s8.u8` (`i8`/`u8` for A, then for B)",
        );
    }
    if int8 && rest.contains("_f32") {
        return Some(
            "8-bit integer inputs accumulate exactly in i32: call `wgmma_m64n<N>k32_i32_<a>_<b>` with \
             `i32` accumulators (`<a>`, `<b>`: `i8` or `u8`)",
        );
    }
    let fp8 = rest.contains("_e4m3");
    if fp8 && (rest.contains("_trans") || rest.contains("_rs")) {
        return Some(
            "an fp8 wgmma reads both operands K-major from shared memory (ptxas rejects fp8 transposes): \
             store the tile K-major (a TMA box along K) and call `wgmma_m64n<N>k32_f32_e4m3`",
        );
    }
    if rest.contains("_rs_trans_a") || rest.contains("_rs_trans_ab") {
        return Some(
            "an A from registers has the fragment layout of `proc::wgmma::a_position`, never a transpose: \
             call `..._rs(a0, a1, a2, a3, desc_b, ..)` or `..._rs_trans_b` for an MN-major B",
        );
    }
    None
}

/// The lowest architecture of `cvt.rn.bf16x2.f32` / `cvt.rn.f16x2.f32` (the packs).
pub const PACK_MIN_ARCH: u32 = 80;

/// `pack_<in>x2(lo: f32, hi: f32) -> u32`: a value of its operands (pure).
const fn pack_row(name: &'static str, input: MmaElem) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic: Intrinsic::Wgmma(WgmmaOp::PackPair(input)),
        sig: Signature {
            types: &[],
            params: &[F, F],
            ret: Ret::Scalar(ScalarType::U32),
        },
        effect: Effect::Pure,
        nvvm: "",
    }
}

/// The PTX of a pack: `cvt` puts its first source in the high half.
pub fn pack_instruction(input: MmaElem) -> String {
    format!("cvt.rn.{}x2.f32 $0, $2, $1;", input.ptx())
}

/// A pack on the CPU (the simulator's and the host twin's): round to nearest even.
pub fn pack_pair(input: MmaElem, lo: f32, hi: f32) -> u32 {
    let half = |x: f32| match input {
        MmaElem::F16 => half::f16::from_f32(x).to_bits(),
        _ => half::bf16::from_f32(x).to_bits(),
    };
    u32::from(half(lo)) | (u32::from(half(hi)) << 16)
}

const fn unit_row(name: &'static str, op: WgmmaOp) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic: Intrinsic::Wgmma(op),
        sig: Signature {
            types: &[],
            params: &[],
            ret: Ret::Unit,
        },
        effect: WGMMA_EFFECT,
        nvvm: "",
    }
}

/// Every wgmma call is kept in place and never duplicated into a versioned loop's two
/// copies (whose threads of one warpgroup could split between them), as a fence is;
/// a block's loop guard keeps all its threads on one copy, as for `sync_threads()`.
const WGMMA_EFFECT: Effect = Effect::Fence;

/// Element types a descriptor's tile may hold.
pub const TILE_TYPES: &[ScalarType] = &[
    ScalarType::BF16,
    ScalarType::F16,
    ScalarType::F32,
    ScalarType::E4M3,
    ScalarType::I8,
    ScalarType::U8,
];

/// The largest `N` of `wgmma_wait_group_N` (groups left in flight).
pub const MAX_PENDING: u8 = 3;

/// The rows, chained into `intrinsics::all`.
pub static WGMMA_INTRINSICS: &[IntrinsicDef] = &[
    unit_row("wgmma_fence", WgmmaOp::Fence),
    unit_row("fence_proxy_async", WgmmaOp::FenceProxyAsync),
    unit_row("wgmma_commit_group", WgmmaOp::Commit),
    unit_row("wgmma_wait_group_0", WgmmaOp::Wait { pending: 0 }),
    unit_row("wgmma_wait_group_1", WgmmaOp::Wait { pending: 1 }),
    unit_row("wgmma_wait_group_2", WgmmaOp::Wait { pending: 2 }),
    unit_row("wgmma_wait_group_3", WgmmaOp::Wait { pending: 3 }),
    pack_row("pack_bf16x2", MmaElem::BF16),
    pack_row("pack_f16x2", MmaElem::F16),
    IntrinsicDef {
        name: "wgmma_descriptor",
        form: Form::Call,
        intrinsic: Intrinsic::Wgmma(WgmmaOp::Descriptor),
        sig: Signature {
            types: TILE_TYPES,
            params: &[
                Param::MutSliceOfT,
                Param::Scalar(ScalarType::Usize),
                U32,
                U32,
                U32,
            ],
            ret: Ret::Scalar(ScalarType::U64),
        },
        effect: WGMMA_EFFECT,
        nvvm: "",
    },
];

/// The MMA rows, chained into `intrinsics::all`.
pub static WGMMA_MMA_INTRINSICS: &[IntrinsicDef] = wgmma_rows!(8, 16, 32, 64, 96, 128, 192, 256);
