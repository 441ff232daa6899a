//! Rust source lines in the NVVM IR, for NVIDIA's tools: every instruction carries a
//! `!dbg` location (the Rust line and column of the expression it computes) under a
//! `DISubprogram` per function and one `DICompileUnit`, so that libnvvm writes PTX
//! `.file`/`.loc` directives (with `-generate-line-info`) and, at [`DebugLevel::Full`]
//! (libnvvm's `-g`), the variables cuda-gdb prints. Line tables only describe the code:
//! the machine code is the same with and without them.
//!
//! Debug nodes are numbered from [`FIRST_NODE`] up, far above the writer's other
//! metadata (branch weights, ranges, loop hints, annotations), so that functions can
//! name their locations while they are written and the text is emitted at the end.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::ir::SourceLoc;

/// How much debug information a module carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DebugLevel {
    /// None (the writer's default: the snapshot tests' and the cache keys' IR).
    #[default]
    None,
    /// Line tables: `.loc` lines in the PTX, what compute-sanitizer, Nsight Compute
    /// and profilers show. cudajit's run-time compiles use this by default.
    LineTables,
    /// Full debug information for cuda-gdb (`#[kernel(debug = true)]`,
    /// `CUDAJIT_DEBUG=1`); libnvvm compiles it with `-g`, unoptimised.
    Full,
}

/// The first metadata number of the debug nodes.
pub const FIRST_NODE: u32 = 100_000;

/// The module's debug nodes so far.
#[derive(Debug, Default)]
pub struct DebugMetadata {
    lines: Vec<String>,
    next: u32,
    compile_unit: Option<u32>,
    files: HashMap<String, u32>,
    subroutine_type: Option<u32>,
    locations: HashMap<(u32, u32, u32), u32>,
    /// DWARF type nodes by Rust type (`debug_vars`).
    pub(super) types: HashMap<String, u32>,
    /// Stack slots (by subprogram) that a `DILocalVariable` describes: stored
    /// volatile so that they stay in memory (`debug_vars`).
    kept_in_memory: HashSet<(u32, String)>,
}

impl DebugMetadata {
    pub(super) fn node(&mut self, text: String) -> u32 {
        let id = FIRST_NODE + self.next;
        self.next += 1;
        self.lines.push(format!("!{id} = {text}"));
        id
    }

    pub(super) fn file(&mut self, path: &str) -> u32 {
        if let Some(id) = self.files.get(path) {
            return *id;
        }
        let (directory, name) = match path.rsplit_once('/') {
            Some((dir, name)) => (dir, name),
            None => (".", path),
        };
        let id = self.node(format!(
            "!DIFile(filename: \"{}\", directory: \"{}\")",
            escape(name),
            escape(directory)
        ));
        self.files.insert(path.to_string(), id);
        id
    }

    /// A `DISubprogram` for function `name` of `file` at `line`.
    pub fn subprogram(&mut self, level: DebugLevel, name: &str, file: &str, line: u32) -> u32 {
        let file = self.file(file);
        let unit = match self.compile_unit {
            Some(unit) => unit,
            None => {
                let kind = match level {
                    DebugLevel::Full => "FullDebug",
                    _ => "DebugDirectivesOnly",
                };
                let unit = self.node(format!(
                    "distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !{file}, \
                     producer: \"cudajit\", isOptimized: {}, runtimeVersion: 0, emissionKind: {kind})",
                    level != DebugLevel::Full
                ));
                self.compile_unit = Some(unit);
                unit
            }
        };
        let ty = match self.subroutine_type {
            Some(ty) => ty,
            None => {
                let empty = self.node("!{}".into());
                let ty = self.node(format!("!DISubroutineType(types: !{empty})"));
                self.subroutine_type = Some(ty);
                ty
            }
        };
        self.node(format!(
            "distinct !DISubprogram(name: \"{}\", scope: !{file}, file: !{file}, line: {line}, \
             type: !{ty}, isLocal: false, isDefinition: true, scopeLine: {line}, \
             isOptimized: {}, unit: !{unit})",
            escape(name),
            level != DebugLevel::Full
        ))
    }

    /// The `DILocation` of `loc` in `scope`.
    pub fn location(&mut self, scope: u32, loc: SourceLoc) -> u32 {
        let key = (scope, loc.line, loc.column);
        if let Some(id) = self.locations.get(&key) {
            return *id;
        }
        let id = self.node(format!(
            "!DILocation(line: {}, column: {}, scope: !{scope})",
            loc.line, loc.column
        ));
        self.locations.insert(key, id);
        id
    }

    /// Marks slot `ptr` of `subprogram` as read by the debugger.
    pub(super) fn keep_in_memory(&mut self, subprogram: u32, ptr: &str) {
        self.kept_in_memory.insert((subprogram, ptr.to_string()));
    }

    pub(super) fn kept_in_memory(&self, subprogram: u32, ptr: &str) -> bool {
        !self.kept_in_memory.is_empty()
            && self.kept_in_memory.contains(&(subprogram, ptr.to_string()))
    }

    /// The nodes and the named metadata that make them the module's debug information
    /// (nothing when no function has any).
    pub fn text(&mut self) -> String {
        let Some(unit) = self.compile_unit else {
            return String::new();
        };
        let flag = self.node("!{i32 2, !\"Debug Info Version\", i32 3}".into());
        let mut out = String::new();
        let _ = writeln!(out, "!llvm.dbg.cu = !{{!{unit}}}");
        let _ = writeln!(out, "!llvm.module.flags = !{{!{flag}}}");
        for line in &self.lines {
            let _ = writeln!(out, "{line}");
        }
        out
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\5C").replace('"', "\\22")
}

/// A function's debug scope and the source location its instructions carry now.
#[derive(Clone, Copy, Debug)]
pub struct FunctionDebug {
    pub subprogram: u32,
    pub level: DebugLevel,
    /// While set, instructions keep the current location whatever expression they
    /// compute (see `debug_loc`'s `pin_loc`).
    pub pinned: bool,
    pub loc: SourceLoc,
}
