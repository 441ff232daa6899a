//! The messages of a kernel's failed `assert!`, `assert_eq!`, `assert_ne!` (and their
//! `debug_` forms), `panic!`, `unreachable!`, `todo!` and `unimplemented!`, as
//! [`FormatProgram`]s whose text is what `core::panicking` writes for the same call.
//! A failed one is a print record like any other (its format in the kernel's table)
//! that the host turns into the launch's `Err(KernelPanic)` with `file:line:column`.

use super::program::{ArgumentSource, FormatProgram, FormatSpec, FormatTrait, Piece, Placeholder};

/// `assert_eq!` or `assert_ne!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssertOp {
    Eq,
    Ne,
}

/// `assert_eq!(left, right)` / `assert_ne!` with an optional message
/// (`assert_eq!(a, b, "..", args)`): `assertion `left == right` failed[: message]`
/// then the operands' `Debug` on two lines. The program's arguments are the
/// message's, then [`ArgumentSource::AssertLeft`] and [`ArgumentSource::AssertRight`].
pub fn assert_compare_message(op: AssertOp, message: Option<FormatProgram>) -> FormatProgram {
    let op = match op {
        AssertOp::Eq => "==",
        AssertOp::Ne => "!=",
    };
    let head = format!("assertion `left {op} right` failed");
    let mut program = prefixed(&head, message);
    let debug = |argument| {
        Piece::Placeholder(Placeholder {
            argument,
            spec: FormatSpec {
                format_trait: FormatTrait::Debug,
                ..FormatSpec::default()
            },
            range: 0..0,
        })
    };
    let left = program.arguments.len();
    program.arguments.push(ArgumentSource::AssertLeft);
    program.arguments.push(ArgumentSource::AssertRight);
    program.pieces.push(Piece::Literal("\n  left: ".into()));
    program.pieces.push(debug(left));
    program.pieces.push(Piece::Literal("\n right: ".into()));
    program.pieces.push(debug(left + 1));
    program
}

/// `assert!(condition)` without a message: `assertion failed: <condition>`, the
/// condition's source text as rustc's `stringify!` writes it (the front end's part).
/// With a message, the message alone is the text (the parsed program itself).
pub fn assert_message(condition_text: &str) -> FormatProgram {
    literal(format!("assertion failed: {condition_text}"))
}

/// The macros that panic with a fixed text, followed by `: message` when given one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanicMacro {
    /// `panic!()`: `explicit panic`; `panic!("..", args)` is the message alone.
    Panic,
    Unreachable,
    Todo,
    Unimplemented,
}

/// The text of `panic!`, `unreachable!`, `todo!` or `unimplemented!`, with or without
/// a message.
pub fn panic_message(which: PanicMacro, message: Option<FormatProgram>) -> FormatProgram {
    let head = match which {
        PanicMacro::Panic => {
            return message.unwrap_or_else(|| literal("explicit panic".into()));
        }
        PanicMacro::Unreachable => "internal error: entered unreachable code",
        PanicMacro::Todo => "not yet implemented",
        PanicMacro::Unimplemented => "not implemented",
    };
    prefixed(head, message)
}

/// `head`, or `head: message` with the message's pieces and arguments.
fn prefixed(head: &str, message: Option<FormatProgram>) -> FormatProgram {
    let Some(message) = message else {
        return literal(head.to_string());
    };
    let mut pieces = vec![Piece::Literal(format!("{head}: "))];
    pieces.extend(message.pieces);
    FormatProgram {
        pieces,
        arguments: message.arguments,
    }
}

fn literal(text: String) -> FormatProgram {
    FormatProgram {
        pieces: vec![Piece::Literal(text)],
        arguments: Vec::new(),
    }
}
