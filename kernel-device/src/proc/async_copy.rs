//! The rules of the asynchronous copies (`cp_async*`, PTX `cp.async`) and the vector
//! loads and stores (`load_vec`/`store_vec`), once for every stage: their rows of the
//! intrinsic table, the byte counts and widths the frontend accepts, and the run-time
//! check each performs (one condition per copy or access), which the NVVM writer
//! prints and the simulator evaluates. The user's guide is `docs/async_copies.md`.

use super::intrinsics::{Effect, Form, IntrinsicDef, Param, Ret, Signature};
use crate::ir::{Intrinsic, ScalarType};

use ScalarType as S;

/// What a copy or a vector access moves: every scalar but `bool`.
pub const ASYNC_ELEMENTS: &[ScalarType] = &[
    S::I8,
    S::I16,
    S::I32,
    S::I64,
    S::Isize,
    S::U8,
    S::U16,
    S::U32,
    S::U64,
    S::Usize,
    S::F32,
    S::F64,
    S::F16,
    S::BF16,
    S::E4M3,
];

const COPY: &[Param] = &[
    Param::MutSliceOfT,
    Param::Scalar(S::Usize),
    Param::SliceOfT,
    Param::Scalar(S::Usize),
];
const COPY_ZERO_FILL: &[Param] = &[
    Param::MutSliceOfT,
    Param::Scalar(S::Usize),
    Param::SliceOfT,
    Param::Scalar(S::Usize),
    Param::Scalar(S::Usize),
];
const UNIT: Signature = Signature {
    types: &[],
    params: &[],
    ret: Ret::Unit,
};

const fn copy_row(name: &'static str, l2_only: bool, zero_fill: bool) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic: Intrinsic::CpAsync {
            bytes: 0,
            l2_only,
            zero_fill,
        },
        sig: Signature {
            types: ASYNC_ELEMENTS,
            params: if zero_fill { COPY_ZERO_FILL } else { COPY },
            ret: Ret::Unit,
        },
        effect: Effect::Memory,
        nvvm: if l2_only {
            "cp.async.cg.shared.global"
        } else {
            "cp.async.ca.shared.global"
        },
    }
}

const fn unit_row(name: &'static str, intrinsic: Intrinsic, nvvm: &'static str) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic,
        sig: UNIT,
        effect: Effect::Memory,
        nvvm,
    }
}

/// The rows (the constants in the intrinsics are 0: [`row_key`]).
pub static ASYNC_COPIES: &[IntrinsicDef] = &[
    copy_row("cp_async", false, false),
    copy_row("cp_async_cg", true, false),
    copy_row("cp_async_zfill", false, true),
    copy_row("cp_async_cg_zfill", true, true),
    unit_row(
        "cp_async_commit",
        Intrinsic::CpAsyncCommit,
        "cp.async.commit_group",
    ),
    unit_row(
        "cp_async_wait",
        Intrinsic::CpAsyncWait { pending: 0 },
        "cp.async.wait_group",
    ),
    unit_row(
        "cp_async_wait_all",
        Intrinsic::CpAsyncWaitAll,
        "cp.async.wait_all",
    ),
    IntrinsicDef {
        name: "load_vec",
        form: Form::Method,
        intrinsic: Intrinsic::LoadVec { lanes: 0 },
        sig: Signature {
            types: ASYNC_ELEMENTS,
            params: &[Param::SliceOfT, Param::Scalar(S::Usize)],
            ret: Ret::ArrayOfT,
        },
        effect: Effect::Memory,
        nvvm: "",
    },
    IntrinsicDef {
        name: "store_vec",
        form: Form::Method,
        intrinsic: Intrinsic::StoreVec { lanes: 0 },
        sig: Signature {
            types: ASYNC_ELEMENTS,
            params: &[Param::MutSliceOfT, Param::Scalar(S::Usize), Param::ArrayOfT],
            ret: Ret::Unit,
        },
        effect: Effect::Memory,
        nvvm: "",
    },
];

/// The key of an intrinsic's row: its constants zeroed.
pub fn row_key(i: Intrinsic) -> Intrinsic {
    match i {
        Intrinsic::CpAsync {
            l2_only, zero_fill, ..
        } => Intrinsic::CpAsync {
            bytes: 0,
            l2_only,
            zero_fill,
        },
        Intrinsic::CpAsyncWait { .. } => Intrinsic::CpAsyncWait { pending: 0 },
        Intrinsic::LoadVec { .. } => Intrinsic::LoadVec { lanes: 0 },
        Intrinsic::StoreVec { .. } => Intrinsic::StoreVec { lanes: 0 },
        other => other,
    }
}

/// Whether an intrinsic needs compute capability 8.0 (`cp.async` is Ampere's).
pub fn needs_sm80(i: Intrinsic) -> bool {
    matches!(
        i,
        Intrinsic::CpAsync { .. }
            | Intrinsic::CpAsyncCommit
            | Intrinsic::CpAsyncWait { .. }
            | Intrinsic::CpAsyncWaitAll
    )
}

/// Why a copy of `bytes` bytes of `elem` cannot be written (PTX's sizes), or `None`.
pub fn copy_size_error(bytes: u64, l2_only: bool, elem: ScalarType) -> Option<String> {
    if !matches!(bytes, 4 | 8 | 16) {
        return Some(format!("`cp_async` copies 4, 8 or 16 bytes, not {bytes}"));
    }
    if l2_only && bytes != 16 {
        return Some(format!(
            "`.cg` copies (L2 only) move 16 bytes, not {bytes}: PTX has no smaller `cp.async.cg`"
        ));
    }
    let size = u64::from(elem.size_bytes());
    if bytes % size != 0 {
        return Some(format!(
            "{bytes} bytes is not a whole number of `{elem}` elements ({size} bytes each)"
        ));
    }
    None
}

/// Why a vector access of `lanes` elements of `elem` cannot be written, or `None`.
/// PTX's `ld`/`st.v2`/`.v4`/`.v8` of 4, 8 or 16 bytes: 4 bytes is a pair of 16-bit
/// values (`[bf16; 2]`, the store of a GEMM epilogue's bf16 pair) or four bytes.
pub fn vector_width_error(lanes: u64, elem: ScalarType) -> Option<String> {
    let bytes = lanes * u64::from(elem.size_bytes());
    if !matches!(lanes, 2 | 4 | 8) || !matches!(bytes, 4 | 8 | 16) {
        return Some(format!(
            "a vector access moves 2, 4 or 8 elements making 4, 8 or 16 bytes; {lanes} `{elem}` make {bytes}"
        ));
    }
    None
}

/// The panic of a failed copy check (operands: the destination and source indices).
pub const COPY_MESSAGE: &str = "cp_async out of bounds or misaligned: destination index {0}, source index {1} (both ends must be in bounds and aligned to the copy's size)";
/// The panic of a failed vector check (operands: the index and the slice's length).
pub const VECTOR_MESSAGE: &str = "vector access out of bounds or misaligned: index {0}, slice length {1} (the elements must be in bounds and the address a multiple of the vector's size)";

/// The elements a copy reads from its source: all of them, or for the zero-filling
/// forms the first `min(valid, lanes)`.
pub fn elements_read(lanes: u64, zero_fill: bool, valid: u64) -> u64 {
    if zero_fill {
        valid.min(lanes)
    } else {
        lanes
    }
}

/// The one check of a copy: `dst[dst_index..+lanes]` in bounds, the elements read from
/// `src` in bounds (none read: no bound), both byte addresses multiples of `bytes`.
/// Addresses are the elements' own (base + index * size).
#[allow(clippy::too_many_arguments)]
pub fn copy_ok(
    bytes: u64,
    lanes: u64,
    read: u64,
    dst_index: u64,
    dst_len: u64,
    dst_addr: u64,
    src_index: u64,
    src_len: u64,
    src_addr: u64,
) -> bool {
    let dst_in = dst_index <= dst_len && dst_len - dst_index >= lanes;
    let src_in = read == 0 || (src_index <= src_len && src_len - src_index >= read);
    let aligned = (dst_addr | src_addr) & (bytes - 1) == 0;
    dst_in && src_in && aligned
}

/// The one check of a vector access of `lanes` elements (`bytes` in all) at `index`.
pub fn vector_ok(bytes: u64, lanes: u64, index: u64, len: u64, addr: u64) -> bool {
    index <= len && len - index >= lanes && addr & (bytes - 1) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validator_rule_ties_the_element_types_and_the_vector_array() {
        use crate::ir::Type;
        use crate::proc::intrinsics::{by_name, signature};
        let slice = |elem, mutable| Type::Slice { elem, mutable };
        let usize_ty = Type::Scalar(S::Usize);
        let copy = by_name("cp_async").unwrap().sig;
        let args = [
            slice(S::F32, true),
            usize_ty.clone(),
            slice(S::F32, false),
            usize_ty.clone(),
        ];
        assert!(copy.check("cp_async", &args, &Type::Unit).is_ok());
        let mixed = [
            slice(S::F32, true),
            usize_ty.clone(),
            slice(S::U32, false),
            usize_ty.clone(),
        ];
        assert!(copy.check("cp_async", &mixed, &Type::Unit).is_err());
        let read_only_dst = [
            slice(S::F32, false),
            usize_ty.clone(),
            slice(S::F32, false),
            usize_ty.clone(),
        ];
        assert!(copy.check("cp_async", &read_only_dst, &Type::Unit).is_err());
        let load = signature(Intrinsic::LoadVec { lanes: 4 });
        let four = Type::array(Type::Scalar(S::F32), 4);
        assert!(load
            .check("load_vec", &[slice(S::F32, false), usize_ty.clone()], &four)
            .is_ok());
        let wrong = Type::array(Type::Scalar(S::F64), 4);
        assert!(load
            .check(
                "load_vec",
                &[slice(S::F32, false), usize_ty.clone()],
                &wrong
            )
            .is_err());
        let store = signature(Intrinsic::StoreVec { lanes: 2 });
        let two = Type::array(Type::Scalar(S::U32), 2);
        let ok = [slice(S::U32, true), usize_ty.clone(), two.clone()];
        assert!(store.check("store_vec", &ok, &Type::Unit).is_ok());
        let bools = [
            slice(S::Bool, true),
            usize_ty,
            Type::array(Type::Scalar(S::Bool), 2),
        ];
        assert!(store.check("store_vec", &bools, &Type::Unit).is_err());
        // Every constant of an intrinsic finds its row.
        for i in [
            Intrinsic::CpAsync {
                bytes: 8,
                l2_only: false,
                zero_fill: true,
            },
            Intrinsic::CpAsyncWait { pending: 3 },
            Intrinsic::StoreVec { lanes: 8 },
        ] {
            assert!(crate::proc::intrinsics::def_of(i).is_some(), "{i:?}");
            assert_eq!(crate::proc::intrinsics::effect(i), Effect::Memory);
        }
    }

    #[test]
    fn sizes_follow_ptx() {
        assert!(copy_size_error(16, true, S::F32).is_none());
        assert!(copy_size_error(4, false, S::U8).is_none());
        assert!(copy_size_error(12, false, S::F32).is_some());
        assert!(copy_size_error(8, true, S::F32).is_some());
        assert!(copy_size_error(4, false, S::F64).is_some());
        assert!(vector_width_error(4, S::F32).is_none());
        assert!(vector_width_error(8, S::BF16).is_none());
        assert!(vector_width_error(3, S::F32).is_some());
        assert!(vector_width_error(4, S::F64).is_some());
        assert!(vector_width_error(2, S::U16).is_none());
        assert!(vector_width_error(2, S::BF16).is_none());
        assert!(vector_width_error(4, S::U8).is_none());
        assert!(vector_width_error(2, S::U8).is_some());
    }

    #[test]
    fn the_copy_check_bounds_what_is_read_and_aligns_both_ends() {
        // 16 bytes of f32 into a 16-element tile at 12: in bounds; at 13: not.
        assert!(copy_ok(16, 4, 4, 12, 16, 48, 0, 4, 0));
        assert!(!copy_ok(16, 4, 4, 13, 17, 52, 0, 4, 0));
        // Zero-filling past the end of the source: nothing read, nothing checked.
        assert!(copy_ok(16, 4, 0, 0, 4, 0, 1000, 4, 4000));
        assert!(copy_ok(16, 4, 2, 0, 4, 0, 2, 4, 8 + 8));
        assert!(!copy_ok(16, 4, 3, 0, 4, 0, 2, 4, 16));
        // Misaligned source.
        assert!(!copy_ok(16, 4, 4, 0, 4, 0, 1, 8, 4));
        assert!(vector_ok(16, 4, 4, 8, 16));
        assert!(!vector_ok(16, 4, 6, 8, 24));
        assert!(!vector_ok(16, 4, 2, 8, 8));
    }
}
