//! What a parsed format string is: the pieces and placeholders of a
//! [`FormatProgram`], each placeholder's [`FormatSpec`], where each argument comes
//! from, and the errors rustc (or cudajit) reports for a string it rejects. Produced
//! by [`super::parse`], read by the front end, the record layout and the renderer.

use std::ops::Range;

/// A format string, parsed and resolved against the call's explicit arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatProgram {
    pub pieces: Vec<Piece>,
    /// Every argument the program reads, in the order the record stores them: the
    /// explicit positional ones, then the explicit named ones, then the names the
    /// string captures from scope (`{x}` without `x = ..`), each once.
    pub arguments: Vec<ArgumentSource>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Text printed as is (escapes already folded: `{{` is `{`).
    Literal(String),
    Placeholder(Placeholder),
}

/// One `{..}`: which argument it prints and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Placeholder {
    /// Index into [`FormatProgram::arguments`].
    pub argument: usize,
    pub spec: FormatSpec,
    /// The byte range of the whole `{..}` in the string.
    pub range: Range<usize>,
}

/// Where an argument's value comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgumentSource {
    /// The call's `n`-th positional argument.
    Positional(usize),
    /// An explicit `name = expr` argument.
    Named(String),
    /// A variable the string names and the call does not pass (`{x}`, `{:w$}`): the
    /// front end resolves it in the enclosing scope.
    Captured(String),
    /// `assert_eq!`/`assert_ne!`'s left operand, printed with `{:?}` after a failure.
    AssertLeft,
    /// Its right operand.
    AssertRight,
}

/// The explicit arguments of a call: `println!("..", a, b, name = c)` has two
/// positional arguments and the named argument `name`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExplicitArguments {
    pub positional: usize,
    pub named: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FormatSpec {
    /// The padding character (a space unless given).
    pub fill: char,
    pub align: Option<Align>,
    /// `+`: print the sign of non-negative numbers too.
    pub sign_plus: bool,
    /// `-`: accepted, and (as in Rust) without effect.
    pub sign_minus: bool,
    /// `#`: radix prefixes, pretty `Debug`.
    pub alternate: bool,
    /// `0`: sign-aware zero padding for numbers.
    pub zero_pad: bool,
    pub width: Option<Count>,
    pub precision: Option<Count>,
    pub format_trait: FormatTrait,
}

impl Default for FormatSpec {
    fn default() -> Self {
        FormatSpec {
            fill: ' ',
            align: None,
            sign_plus: false,
            sign_minus: false,
            alternate: false,
            zero_pad: false,
            width: None,
            precision: None,
            format_trait: FormatTrait::Display,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

/// A width or precision: a number in the string, or an argument (`usize`) read at run
/// time (`N$`, `name$`, `.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Literal(usize),
    Argument(usize),
}

/// The trait a placeholder formats with (`{:p}`, `Pointer`, is rejected: device
/// addresses mean nothing on the host).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormatTrait {
    Display,
    Debug,
    /// `{:x?}`: `Debug` with integers in lower-case hexadecimal.
    DebugLowerHex,
    /// `{:X?}`.
    DebugUpperHex,
    LowerHex,
    UpperHex,
    Octal,
    Binary,
    LowerExp,
    UpperExp,
}

impl FormatTrait {
    /// The trait's name in `std::fmt`.
    pub fn trait_name(self) -> &'static str {
        match self {
            FormatTrait::Display => "Display",
            FormatTrait::Debug | FormatTrait::DebugLowerHex | FormatTrait::DebugUpperHex => "Debug",
            FormatTrait::LowerHex => "LowerHex",
            FormatTrait::UpperHex => "UpperHex",
            FormatTrait::Octal => "Octal",
            FormatTrait::Binary => "Binary",
            FormatTrait::LowerExp => "LowerExp",
            FormatTrait::UpperExp => "UpperExp",
        }
    }

    pub fn is_debug(self) -> bool {
        matches!(
            self,
            FormatTrait::Debug | FormatTrait::DebugLowerHex | FormatTrait::DebugUpperHex
        )
    }
}

/// A format string rustc (or cudajit, for `{:p}`) rejects.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct FormatError {
    pub kind: FormatErrorKind,
    /// Bytes of the string the error points at (empty at the end for an unterminated
    /// `{`); `None` for an explicit argument the string never uses.
    pub range: Option<Range<usize>>,
    /// The explicit argument (its index in positional-then-named order) the error is
    /// about, for "argument never used".
    pub argument: Option<usize>,
}

impl FormatError {
    /// What rustc adds below the message, where it adds something.
    pub fn note(&self) -> Option<String> {
        match &self.kind {
            FormatErrorKind::UnmatchedClose => {
                Some("if you intended to print `}`, you can escape it using `}}`".into())
            }
            FormatErrorKind::ExpectedClose { .. } | FormatErrorKind::Unterminated => {
                Some("if you intended to print `{`, you can escape it using `{{`".into())
            }
            FormatErrorKind::UnknownTrait(_) => Some(
                "the only appropriate formatting traits are: `` (Display), `?` (Debug), \
                 `e` (LowerExp), `E` (UpperExp), `o` (Octal), `b` (Binary), `x` (LowerHex), \
                 `X` (UpperHex)"
                    .into(),
            ),
            FormatErrorKind::ReorderedDebug(c) => Some(format!("write `{c}?`, not `?{c}`")),
            FormatErrorKind::FieldAccess => Some(
                "consider moving this expression to a local variable and then using the \
                 local here instead"
                    .into(),
            ),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatErrorKind {
    #[error("invalid format string: unmatched `}}` found")]
    UnmatchedClose,
    #[error("invalid format string: expected `}}`, found `{}`", .0.escape_debug())]
    ExpectedClose(char),
    #[error("invalid format string: expected `}}` but string was terminated")]
    Unterminated,
    #[error("invalid format string: expected `}}`, found `{0}`")]
    ReorderedDebug(char),
    #[error("unknown format trait `{0}`")]
    UnknownTrait(String),
    #[error(
        "`{{:p}}` (Pointer) is not supported in kernels: a device address means nothing \
         where the host prints it"
    )]
    PointerUnsupported,
    #[error(
        "invalid format string: integer `{0}` does not fit into the type `u16` whose range \
         is `0..=65535`"
    )]
    IntegerTooLarge(String),
    #[error("invalid format string: invalid argument name `_`")]
    UnderscoreName,
    #[error("invalid format string: raw identifiers are not supported")]
    RawIdentifier,
    #[error("invalid format string: field access isn't supported")]
    FieldAccess,
    #[error("invalid reference to positional argument {index} ({})", there_are(*.count))]
    InvalidPositional { index: usize, count: usize },
    #[error(
        "{references} positional argument{} in format string, but {}",
        if *.references == 1 { "" } else { "s" },
        there_are(*.count)
    )]
    TooFewArguments { references: usize, count: usize },
    #[error("argument never used")]
    UnusedArgument,
    #[error("named argument never used")]
    UnusedNamedArgument,
}

fn there_are(count: usize) -> String {
    match count {
        0 => "no arguments were given".into(),
        1 => "there is 1 argument".into(),
        n => format!("there are {n} arguments"),
    }
}

impl FormatProgram {
    /// The arguments read as a width or precision: rustc requires each to be `usize`.
    pub fn count_arguments(&self) -> Vec<usize> {
        let mut counts: Vec<usize> = self
            .placeholders()
            .flat_map(|p| [p.spec.width, p.spec.precision])
            .filter_map(|c| match c {
                Some(Count::Argument(i)) => Some(i),
                _ => None,
            })
            .collect();
        counts.sort_unstable();
        counts.dedup();
        counts
    }

    pub fn placeholders(&self) -> impl Iterator<Item = &Placeholder> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Placeholder(p) => Some(p),
            Piece::Literal(_) => None,
        })
    }
}
