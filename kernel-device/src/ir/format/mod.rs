//! Printing from kernels (`print!`, `println!`, `eprint!`, `eprintln!`, and the
//! messages of `assert!`/`panic!`) with Rust's exact formatting: the one definition of
//! the format-string grammar ([`parse`]), of the binary records kernels append to a
//! device buffer ([`record`]), and of how a record becomes text ([`render`]). The
//! device never formats: a thread writes a format id and its arguments' raw bytes, and
//! the host formats them with Rust's own `fmt` when the launch's stream is
//! synchronised, so `0.1f32` prints `0.1` and not C's `0.100000`.
//!
//! How the stages use it (the wiring is the next step):
//!
//! - **Front end.** At `println!("..", args)` it calls [`parse::parse`] with the
//!   string's value and the call's explicit arguments, turns each [`FormatError`] into
//!   a spanned compile error (the `range` is in the unescaped string: point at the
//!   literal, or inside it when it has no escapes), resolves
//!   [`ArgumentSource::Captured`] names in scope, checks each placeholder with
//!   [`render::check_trait`] and each of [`FormatProgram::count_arguments`] for
//!   `usize`, and appends a [`PrintFormat`] to the kernel module's [`FormatTable`]; the
//!   statement in the IR is a print effect holding the format's id and the argument
//!   values in [`FormatProgram::arguments`] order (`println!` adds `\n` to the last
//!   literal, as Rust does).
//! - **NVVM writer.** The table travels as module data (the host needs it; the device
//!   needs only ids and [`record::RecordLayout`]s, which are compile-time constants).
//!   A print statement becomes: `atomicAdd` of `record_bytes` on the buffer's cursor;
//!   if the record fits, stores of the header (id, payload length, linear block and
//!   thread index) and of each argument at its layout offset; otherwise an `atomicAdd`
//!   on `dropped_records` and an `atomicMin` on `first_dropped_offset` (the
//!   [`record`] module's header explains why that makes the reader exact). The buffer
//!   is a hidden kernel parameter or a module global, sized by the launch options.
//! - **Simulator.** A print statement calls [`record::append_record`] on a host buffer
//!   with the same layout, so the two backends produce the same bytes and, through the
//!   same decoder and renderer, the same text.
//! - **Host.** After the launch's stream is synchronised it copies the buffer back
//!   (header first, then only the `cursor` bytes written), calls [`record::decode`]
//!   with the table's argument types and [`render_output`], writes `stdout`/`stderr`,
//!   and resets the 32-byte header for the next launch. `CUDAJIT_PRINT_ORDER=thread`
//!   is [`PrintOrder::Thread`]: a stable sort by (block, thread), so a thread's lines
//!   keep their order.

pub mod panic;
pub mod parse;
pub mod program;
pub mod record;
pub mod render;

#[cfg(test)]
mod tests;

pub use parse::{parse, ArgumentSource, ExplicitArguments, FormatError, FormatProgram};
pub use record::{DecodedBuffer, RecordLayout, Value};
pub use render::{check_trait, render, RenderError};

use crate::ir::Type;

/// Where a format's text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    Stderr,
    /// A failed `assert!`/`panic!`'s message: it becomes the launch's
    /// `Err(KernelPanic)`, never printed.
    Panic,
}

/// One `print!`-family call site of a kernel: the parsed string and the types of its
/// arguments (in [`FormatProgram::arguments`] order).
#[derive(Clone, Debug, PartialEq)]
pub struct PrintFormat {
    pub program: FormatProgram,
    pub argument_types: Vec<Type>,
    pub destination: Destination,
}

/// A kernel's print formats: a record's format id is an index into it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FormatTable {
    pub formats: Vec<PrintFormat>,
}

impl FormatTable {
    /// Adds a format and returns its id.
    pub fn push(&mut self, format: PrintFormat) -> u32 {
        self.formats.push(format);
        (self.formats.len() - 1) as u32
    }

    pub fn argument_types(&self, format_id: u32) -> Option<&[Type]> {
        self.formats
            .get(format_id as usize)
            .map(|f| f.argument_types.as_slice())
    }
}

/// The order in which a launch's lines are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrintOrder {
    /// The order threads reserved their records in (the device's real order).
    #[default]
    Arrival,
    /// Sorted by (block, thread), each thread's lines in program order
    /// (`CUDAJIT_PRINT_ORDER=thread`): comparable across runs and backends.
    Thread,
}

/// A launch's printed text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintOutput {
    pub stdout: String,
    pub stderr: String,
    pub dropped_records: u64,
    /// Rendered panic messages: who panicked, with which format, and the text.
    pub panics: Vec<(record::RecordOrigin, u32, String)>,
}

impl PrintOutput {
    /// The line the host prints (to stderr) after a launch's output when records were
    /// dropped: never a silent loss.
    pub fn dropped_notice(&self) -> Option<String> {
        (self.dropped_records > 0).then(|| {
            format!(
                "cudajit: {} print record{} dropped: the kernel's print buffer was full \
                 (give the launch a larger print buffer)",
                self.dropped_records,
                if self.dropped_records == 1 {
                    " was"
                } else {
                    "s were"
                }
            )
        })
    }
}

/// Formats a decoded buffer's records in `order`.
pub fn render_output(
    table: &FormatTable,
    mut decoded: DecodedBuffer,
    order: PrintOrder,
) -> Result<PrintOutput, RenderError> {
    if order == PrintOrder::Thread {
        decoded.records.sort_by_key(|r| r.origin);
    }
    let mut output = PrintOutput {
        dropped_records: decoded.dropped_records,
        ..PrintOutput::default()
    };
    for record in &decoded.records {
        let format = table
            .formats
            .get(record.format_id as usize)
            .ok_or(RenderError::UnknownFormat(record.format_id))?;
        let out = match format.destination {
            Destination::Stdout => &mut output.stdout,
            Destination::Stderr => &mut output.stderr,
            Destination::Panic => {
                let text = render::render(&format.program, &record.values)?;
                output.panics.push((record.origin, record.format_id, text));
                continue;
            }
        };
        render::render_into(out, &format.program, &record.values)?;
    }
    Ok(output)
}
