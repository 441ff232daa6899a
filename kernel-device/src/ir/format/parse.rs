//! The format-string parser: Rust's `format_args!` grammar (as `print!`, `println!`,
//! `eprint!`, `eprintln!`, `assert!` and `panic!` take it) turned into a
//! [`FormatProgram`], or into errors that say what rustc would say, with the byte range
//! in the (unescaped) string.
//!
//! The grammar is std::fmt's: `{{`/`}}` escapes, `{}` / `{0}` / `{name}` and a spec
//! `[[fill]align][sign]['#']['0'][width]['.' precision][type]`, width and precision
//! either a number or an argument (`N$`, `name$`, and `.*` for precision). Like rustc,
//! `0$` is a width argument rather than the `0` flag, whitespace may follow the
//! argument and the spec, and numbers are `u16`.

use std::ops::Range;

pub use super::program::{
    Align, ArgumentSource, Count, ExplicitArguments, FormatError, FormatErrorKind, FormatProgram,
    FormatSpec, FormatTrait, Piece, Placeholder,
};

/// Parses `string` (the literal's value, escapes already applied) against the call's
/// explicit arguments. Parse errors stop at the first (as rustc reports one); argument
/// errors (bad references, unused arguments) are all returned.
pub fn parse(
    string: &str,
    explicit: &ExplicitArguments,
) -> Result<FormatProgram, Vec<FormatError>> {
    let mut parser = Parser {
        string,
        chars: string.char_indices().collect(),
        next: 0,
        implicit_counter: 0,
    };
    let raw = parser.pieces().map_err(|e| vec![e])?;
    resolve(raw, parser.implicit_counter, explicit)
}

/// An argument reference as written, before resolution.
#[derive(Clone, Debug)]
enum RawArgument {
    Index(usize),
    /// `{}` or `.*`: the next index, counted by the parser.
    Implicit(usize),
    Name(String),
}

#[derive(Clone, Debug)]
enum RawCount {
    Literal(usize),
    Argument(RawArgument),
}

#[derive(Debug)]
enum RawPiece {
    Literal(String),
    Placeholder {
        argument: RawArgument,
        spec: FormatSpec,
        width: Option<RawCount>,
        precision: Option<RawCount>,
        range: Range<usize>,
    },
}

struct Parser<'s> {
    string: &'s str,
    chars: Vec<(usize, char)>,
    next: usize,
    implicit_counter: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.next).map(|&(_, c)| c)
    }

    fn peek_ahead(&self) -> Option<char> {
        self.chars.get(self.next + 1).map(|&(_, c)| c)
    }

    /// The byte offset of the current character (the string's length at its end).
    fn offset(&self) -> usize {
        self.chars
            .get(self.next)
            .map_or(self.string.len(), |&(i, _)| i)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn error(&self, kind: FormatErrorKind, range: Range<usize>) -> FormatError {
        FormatError {
            kind,
            range: Some(range),
            argument: None,
        }
    }

    /// The current character's byte range.
    fn here(&self) -> Range<usize> {
        let start = self.offset();
        start..start + self.peek().map_or(0, char::len_utf8)
    }

    fn pieces(&mut self) -> Result<Vec<RawPiece>, FormatError> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        while let Some(c) = self.peek() {
            let start = self.offset();
            self.next += 1;
            match c {
                '{' if self.eat('{') => literal.push('{'),
                '}' if self.eat('}') => literal.push('}'),
                '}' => return Err(self.error(FormatErrorKind::UnmatchedClose, start..start + 1)),
                '{' => {
                    if !literal.is_empty() {
                        pieces.push(RawPiece::Literal(std::mem::take(&mut literal)));
                    }
                    pieces.push(self.placeholder(start)?);
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            pieces.push(RawPiece::Literal(literal));
        }
        Ok(pieces)
    }

    /// After `{`: `[argument] [ws] [':' spec] [ws] '}'`.
    fn placeholder(&mut self, open: usize) -> Result<RawPiece, FormatError> {
        let explicit = self.position()?;
        self.skip_whitespace();
        let (spec, width, precision) = self.spec()?;
        self.skip_whitespace();
        if !self.eat('}') {
            return Err(self.missing_close(&explicit));
        }
        // As in rustc, an implicit `{}` takes its index after `.*` took one.
        let argument = explicit.unwrap_or_else(|| {
            let index = self.implicit_counter;
            self.implicit_counter += 1;
            RawArgument::Implicit(index)
        });
        Ok(RawPiece::Placeholder {
            argument,
            spec,
            width,
            precision,
            range: open..self.offset(),
        })
    }

    fn missing_close(&mut self, explicit: &Option<RawArgument>) -> FormatError {
        let Some(found) = self.peek() else {
            let end = self.string.len();
            return self.error(FormatErrorKind::Unterminated, end..end);
        };
        // `{x.y}` / `{x.0}`: rustc names the field access rather than the `.`.
        if found == '.' && matches!(explicit, Some(RawArgument::Name(_))) {
            let start = self.offset();
            return self.error(FormatErrorKind::FieldAccess, start..start + 1);
        }
        let at = self.offset();
        self.error(FormatErrorKind::ExpectedClose(found), at..at)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.next += 1;
        }
    }

    /// `integer | identifier`, or nothing (the next implicit position).
    fn position(&mut self) -> Result<Option<RawArgument>, FormatError> {
        if let Some(index) = self.integer()? {
            return Ok(Some(RawArgument::Index(index)));
        }
        if !self.peek().is_some_and(is_ident_start) {
            return Ok(None);
        }
        let start = self.offset();
        let word = self.word()?;
        if word == "r" && self.peek() == Some('#') && self.peek_ahead().is_some_and(is_ident_start)
        {
            self.next += 1;
            self.word()?;
            return Err(self.error(FormatErrorKind::RawIdentifier, start..self.offset()));
        }
        Ok(Some(RawArgument::Name(word)))
    }

    /// A decimal `u16`, as rustc reads argument indices, widths and precisions.
    fn integer(&mut self) -> Result<Option<usize>, FormatError> {
        let start = self.offset();
        let mut value: Option<u32> = None;
        let mut overflow = false;
        while let Some(digit) = self.peek().and_then(|c| c.to_digit(10)) {
            self.next += 1;
            let v = value.unwrap_or(0) * 10 + digit;
            overflow |= v > u16::MAX as u32;
            value = Some(v % 100_000);
        }
        if overflow {
            let end = self.offset();
            let text = self.string[start..end].to_string();
            return Err(self.error(FormatErrorKind::IntegerTooLarge(text), start..end));
        }
        Ok(value.map(|v| v as usize))
    }

    /// An identifier (keywords included); a lone `_` is an error.
    fn word(&mut self) -> Result<String, FormatError> {
        let start = self.offset();
        if !self.peek().is_some_and(is_ident_start) {
            return Ok(String::new());
        }
        self.next += 1;
        while self.peek().is_some_and(is_ident_continue) {
            self.next += 1;
        }
        let word = &self.string[start..self.offset()];
        if word == "_" {
            return Err(self.error(FormatErrorKind::UnderscoreName, start..self.offset()));
        }
        Ok(word.to_string())
    }

    /// `[':' [[fill]align][sign]['#']['0'][width]['.' precision][type]]`.
    fn spec(&mut self) -> Result<(FormatSpec, Option<RawCount>, Option<RawCount>), FormatError> {
        let mut spec = FormatSpec::default();
        if !self.eat(':') {
            return Ok((spec, None, None));
        }
        if let (Some(fill), Some('<' | '^' | '>')) = (self.peek(), self.peek_ahead()) {
            spec.fill = fill;
            self.next += 1;
        }
        spec.align = match self.peek() {
            Some('<') => Some(Align::Left),
            Some('^') => Some(Align::Center),
            Some('>') => Some(Align::Right),
            _ => None,
        };
        if spec.align.is_some() {
            self.next += 1;
        }
        spec.sign_plus = self.eat('+');
        spec.sign_minus = !spec.sign_plus && self.eat('-');
        spec.alternate = self.eat('#');
        let mut width = None;
        if self.eat('0') {
            // `0$` is argument 0 as the width, not the `0` flag.
            if self.eat('$') {
                width = Some(RawCount::Argument(RawArgument::Index(0)));
            } else {
                spec.zero_pad = true;
            }
        }
        if width.is_none() {
            width = self.count()?;
        }
        let mut precision = None;
        if self.eat('.') {
            if self.eat('*') {
                let index = self.implicit_counter;
                self.implicit_counter += 1;
                precision = Some(RawCount::Argument(RawArgument::Implicit(index)));
            } else {
                // rustc reads `.` followed by no count as no precision.
                precision = self.count()?;
            }
        }
        spec.format_trait = self.format_trait()?;
        Ok((spec, width, precision))
    }

    /// `integer | integer '$' | identifier '$'`, or nothing.
    fn count(&mut self) -> Result<Option<RawCount>, FormatError> {
        if let Some(n) = self.integer()? {
            return Ok(Some(if self.eat('$') {
                RawCount::Argument(RawArgument::Index(n))
            } else {
                RawCount::Literal(n)
            }));
        }
        let rewind = self.next;
        let word = self.word()?;
        if word.is_empty() {
            return Ok(None);
        }
        if self.eat('$') {
            Ok(Some(RawCount::Argument(RawArgument::Name(word))))
        } else {
            // Not a count: the word is the type (`{:x}`), read next.
            self.next = rewind;
            Ok(None)
        }
    }

    fn format_trait(&mut self) -> Result<FormatTrait, FormatError> {
        let start = self.offset();
        if self.eat('x') {
            return Ok(if self.eat('?') {
                FormatTrait::DebugLowerHex
            } else {
                FormatTrait::LowerHex
            });
        }
        if self.eat('X') {
            return Ok(if self.eat('?') {
                FormatTrait::DebugUpperHex
            } else {
                FormatTrait::UpperHex
            });
        }
        if self.eat('?') {
            if let Some(c @ ('#' | 'x' | 'X')) = self.peek() {
                return Err(self.error(FormatErrorKind::ReorderedDebug(c), self.here()));
            }
            return Ok(FormatTrait::Debug);
        }
        let word = self.word()?;
        let range = start..self.offset();
        Ok(match word.as_str() {
            "" => FormatTrait::Display,
            "o" => FormatTrait::Octal,
            "b" => FormatTrait::Binary,
            "e" => FormatTrait::LowerExp,
            "E" => FormatTrait::UpperExp,
            "p" => return Err(self.error(FormatErrorKind::PointerUnsupported, range)),
            _ => return Err(self.error(FormatErrorKind::UnknownTrait(word), range)),
        })
    }
}

/// Rust's identifier characters (Unicode XID), through syn's lexer so that the rule is
/// the compiler's and not an approximation.
fn is_ident_start(c: char) -> bool {
    c == '_'
        || c.is_ascii_alphabetic()
        || (!c.is_ascii() && syn::parse_str::<syn::Ident>(&format!("{c}")).is_ok())
}

fn is_ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || c == '_'
        || (!c.is_ascii() && syn::parse_str::<syn::Ident>(&format!("a{c}")).is_ok())
}

/// Turns written references into indices of the program's argument list, capturing
/// unknown names, and reports bad indices and unused explicit arguments.
fn resolve(
    raw: Vec<RawPiece>,
    implicit_references: usize,
    explicit: &ExplicitArguments,
) -> Result<FormatProgram, Vec<FormatError>> {
    let explicit_count = explicit.positional + explicit.named.len();
    let mut arguments: Vec<ArgumentSource> = (0..explicit.positional)
        .map(ArgumentSource::Positional)
        .chain(explicit.named.iter().cloned().map(ArgumentSource::Named))
        .collect();
    let mut used = vec![false; explicit_count];
    let mut errors = Vec::new();
    let mut invalid_implicit = Vec::new();
    let mut resolve_one = |argument: &RawArgument, range: &Range<usize>| -> usize {
        match argument {
            RawArgument::Implicit(index) => {
                if *index < explicit_count {
                    used[*index] = true;
                } else {
                    invalid_implicit.push((*index, range.clone()));
                }
                *index
            }
            RawArgument::Index(index) => {
                if *index < explicit_count {
                    used[*index] = true;
                } else {
                    errors.push(FormatError {
                        kind: FormatErrorKind::InvalidPositional {
                            index: *index,
                            count: explicit_count,
                        },
                        range: Some(range.clone()),
                        argument: None,
                    });
                }
                *index
            }
            RawArgument::Name(name) => {
                if let Some(i) = explicit.named.iter().position(|n| n == name) {
                    used[explicit.positional + i] = true;
                    return explicit.positional + i;
                }
                let captured = ArgumentSource::Captured(name.clone());
                arguments
                    .iter()
                    .position(|a| *a == captured)
                    .unwrap_or_else(|| {
                        arguments.push(captured);
                        arguments.len() - 1
                    })
            }
        }
    };
    let mut pieces = Vec::with_capacity(raw.len());
    for piece in raw {
        match piece {
            RawPiece::Literal(text) => pieces.push(Piece::Literal(text)),
            RawPiece::Placeholder {
                argument,
                mut spec,
                width,
                precision,
                range,
            } => {
                let mut count = |c: Option<RawCount>| {
                    c.map(|c| match c {
                        RawCount::Literal(n) => Count::Literal(n),
                        RawCount::Argument(a) => Count::Argument(resolve_one(&a, &range)),
                    })
                };
                spec.width = count(width);
                spec.precision = count(precision);
                let argument = resolve_one(&argument, &range);
                pieces.push(Piece::Placeholder(Placeholder {
                    argument,
                    spec,
                    range,
                }));
            }
        }
    }
    // rustc counts the string's implicit references when only those are out of range
    // (`"{} {}"` with one argument), and names each index otherwise.
    let only_implicit = errors.is_empty();
    if let (true, Some((_, range))) = (only_implicit, invalid_implicit.first()) {
        errors.push(FormatError {
            kind: FormatErrorKind::TooFewArguments {
                references: implicit_references,
                count: explicit_count,
            },
            range: Some(range.clone()),
            argument: None,
        });
    } else {
        for (index, range) in invalid_implicit {
            errors.push(FormatError {
                kind: FormatErrorKind::InvalidPositional {
                    index,
                    count: explicit_count,
                },
                range: Some(range),
                argument: None,
            });
        }
    }
    for (index, used) in used.iter().enumerate() {
        if !used {
            let kind = if index < explicit.positional {
                FormatErrorKind::UnusedArgument
            } else {
                FormatErrorKind::UnusedNamedArgument
            };
            errors.push(FormatError {
                kind,
                range: None,
                argument: Some(index),
            });
        }
    }
    if errors.is_empty() {
        Ok(FormatProgram { pieces, arguments })
    } else {
        Err(errors)
    }
}
