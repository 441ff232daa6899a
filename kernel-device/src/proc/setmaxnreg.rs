//! Register reallocation for warp specialisation (PTX `setmaxnreg`, sm_90a): the rules of
//! `setmaxnreg_inc::<N>()` and `setmaxnreg_dec::<N>()`. A warpgroup that only issues
//! copies gives registers back (`dec`) so that the warpgroups holding wgmma accumulators
//! can take them (`inc`); the count is an immediate of the instruction, so a constant,
//! and every thread of the warpgroup executes it together (`.sync.aligned`), as a wgmma.
//! The frontend checks the count with [`count_error`]; the NVVM writer prints the
//! instruction; the simulator checks that a whole warpgroup executes it.

use super::intrinsics::{Form, IntrinsicDef, Ret, Signature};
use crate::ir::{Intrinsic, WgmmaOp};

/// The fewest and most registers per thread `setmaxnreg` may ask for.
pub const MIN_REGISTERS: u64 = 24;
pub const MAX_REGISTERS: u64 = 256;

/// Why `count` cannot be a `setmaxnreg` count (PTX: 24 to 256, a multiple of 8), or `None`.
pub fn count_error(count: u64) -> Option<String> {
    if !(MIN_REGISTERS..=MAX_REGISTERS).contains(&count) || count % 8 != 0 {
        Some(format!(
            "the register count of `setmaxnreg` is {count}; PTX allows a multiple of 8 from {MIN_REGISTERS} to {MAX_REGISTERS}"
        ))
    } else {
        None
    }
}

/// The PTX of one reallocation.
pub fn instruction(increase: bool, count: u16) -> String {
    let way = if increase { "inc" } else { "dec" };
    format!("setmaxnreg.{way}.sync.aligned.u32 {count};")
}

/// The name of the call for `increase`.
pub const fn name(increase: bool) -> &'static str {
    if increase {
        "setmaxnreg_inc"
    } else {
        "setmaxnreg_dec"
    }
}

/// The key of a reallocation's row: its count zeroed (one row per name).
pub fn row_key(i: Intrinsic) -> Intrinsic {
    match i {
        Intrinsic::Wgmma(WgmmaOp::SetMaxNreg { increase, .. }) => {
            Intrinsic::Wgmma(WgmmaOp::SetMaxNreg { increase, count: 0 })
        }
        other => other,
    }
}

const fn row(increase: bool) -> IntrinsicDef {
    IntrinsicDef {
        name: name(increase),
        form: Form::Call,
        intrinsic: Intrinsic::Wgmma(WgmmaOp::SetMaxNreg { increase, count: 0 }),
        sig: Signature {
            types: &[],
            params: &[],
            ret: Ret::Unit,
        },
        // Kept in place like every warpgroup-collective step (`proc::wgmma`).
        effect: super::intrinsics::Effect::Fence,
        nvvm: "",
    }
}

/// The rows (count 0: [`row_key`]), chained into `intrinsics::all`.
pub static SETMAXNREG_INTRINSICS: &[IntrinsicDef] = &[row(true), row(false)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_multiples_of_8_from_24_to_256() {
        let allowed: Vec<u64> = (0..=300).filter(|&c| count_error(c).is_none()).collect();
        let expected: Vec<u64> = (3..=32).map(|k| 8 * k).collect();
        assert_eq!(allowed, expected);
        assert!(count_error(20)
            .unwrap()
            .contains("multiple of 8 from 24 to 256"));
    }

    #[test]
    fn instruction_text_is_ptx() {
        assert_eq!(
            instruction(true, 240),
            "setmaxnreg.inc.sync.aligned.u32 240;"
        );
        assert_eq!(
            instruction(false, 40),
            "setmaxnreg.dec.sync.aligned.u32 40;"
        );
    }

    #[test]
    fn every_count_finds_its_row() {
        let i = Intrinsic::Wgmma(WgmmaOp::SetMaxNreg {
            increase: false,
            count: 40,
        });
        let def = crate::proc::intrinsics::def_of(i).expect("a row");
        assert_eq!(def.name, "setmaxnreg_dec");
    }
}
