//! The IR's print statement: one `print!`-family call, or the message of a failed
//! `assert!`/`panic!`, as a format id into the module's table
//! ([`crate::ir::format::FormatTable`]) and the argument values. Built once by the
//! front end; the NVVM writer appends a record, the simulator appends the same record,
//! the host formats it.

use super::{Expr, Handle, SourceLoc};

#[derive(Clone, Debug)]
pub struct PrintStmt {
    /// Index into [`super::Module::prints`].
    pub format: u32,
    /// The values in [`crate::ir::format::FormatProgram::arguments`] order, evaluated
    /// left to right.
    pub args: Vec<Handle<Expr>>,
    /// The macro call (what a panic's `file:line:column` names, as rustc does).
    pub loc: SourceLoc,
    pub kind: PrintKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintKind {
    /// `print!`, `println!`, `eprint!`, `eprintln!`: the thread goes on.
    Print,
    /// A failed `assert!`/`panic!`: the record is the panic's message and the thread
    /// ends as a device-side panic (the launch's `Err(KernelPanic)`).
    Panic,
}
