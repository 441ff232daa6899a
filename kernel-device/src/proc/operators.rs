//! Operator typing, once: which scalar types each operator takes. The frontend checks
//! the user's operands against it (after inference, as rustc's trait checks do) and the
//! validator checks the IR against the same classes.

use crate::ir::{BinaryOp, ScalarType};

/// The scalar types an operator's operands may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandClass {
    /// Integer or float (arithmetic).
    Numeric,
    /// Integer (shifts).
    Integer,
    /// Integer or bool (`& | ^ !`).
    IntOrBool,
    /// Any scalar (comparisons).
    Scalar,
    /// Signed integer or float (unary `-`).
    Negatable,
}

impl OperandClass {
    pub fn allows(self, s: ScalarType) -> bool {
        if s.is_storage_only() {
            return false;
        }
        match self {
            OperandClass::Numeric => s != ScalarType::Bool,
            OperandClass::Integer => s.is_integer(),
            OperandClass::IntOrBool => s.is_integer() || s == ScalarType::Bool,
            OperandClass::Scalar => true,
            OperandClass::Negatable => s.is_signed_integer() || s.is_float(),
        }
    }
}

/// The class of both operands of `op` (a shift's amount is any integer, checked apart).
pub fn binary_operand_class(op: BinaryOp) -> OperandClass {
    match op {
        BinaryOp::Shl | BinaryOp::Shr => OperandClass::Integer,
        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => OperandClass::IntOrBool,
        op if op.is_comparison() => OperandClass::Scalar,
        _ => OperandClass::Numeric,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_take_the_types_rust_gives_them() {
        let class = binary_operand_class;
        assert!(class(BinaryOp::Add).allows(ScalarType::F32));
        assert!(!class(BinaryOp::Add).allows(ScalarType::Bool));
        assert!(class(BinaryOp::BitXor).allows(ScalarType::Bool));
        assert!(!class(BinaryOp::BitXor).allows(ScalarType::F64));
        assert!(!class(BinaryOp::Shl).allows(ScalarType::F32));
        assert!(class(BinaryOp::Lt).allows(ScalarType::Bool));
        assert!(!OperandClass::Negatable.allows(ScalarType::U8));
        assert!(!class(BinaryOp::Mul).allows(ScalarType::E4M3));
        assert!(!class(BinaryOp::Eq).allows(ScalarType::E4M3));
    }
}
