//! Compile-time facts about the call graph the macro's statics form, evaluated by rustc
//! in constants the macro emits: whether a device function reaches itself (recursion
//! through other device functions, reported in cudajit's words at `cargo check`), and
//! the markers that tell a `#[device]` function from an ordinary one.

use super::{FnSource, SourceKind};

/// The type of a `#[device]` function's `__CUDAJIT_MARK`: the only type the generated
/// "is this callee a device function" bound accepts.
pub struct IsDevice;

impl FnSource {
    /// What an ordinary function (not `#[device]`) contributes as a dependency: nothing
    /// that is ever compiled, since naming one as a callee is a compile error.
    pub const NOT_A_DEVICE_FUNCTION: FnSource = FnSource {
        name: "",
        kind: SourceKind::Device,
        text: "",
        file: "",
        line: 0,
        options: crate::ir::FunctionOptions::DEFAULT,
        deps: &[],
        consts: &[],
        structs: &[],
        instance: &[],
    };
}

/// The deepest call chain followed; a chain this long is not recursion worth finding
/// (and run-time validation still rejects any cycle).
const MAX_DEPTH: usize = 64;

/// Whether `root` calls itself through other functions and is, of that cycle, the
/// first by file and line: so a cycle of several functions is reported once.
pub const fn first_of_a_call_cycle(root: &FnSource) -> bool {
    let mut stack: [(&FnSource, usize); MAX_DEPTH] = [(root, 0); MAX_DEPTH];
    let mut depth = 1;
    while depth > 0 {
        let (node, next) = stack[depth - 1];
        if next == node.deps.len() {
            depth -= 1;
            continue;
        }
        stack[depth - 1].1 += 1;
        let dep = node.deps[next];
        if same_function(dep, root) {
            // Direct recursion (depth 1) is the frontend's error, at the call.
            if depth > 1 && first_on_stack(root, &stack, depth) {
                return true;
            }
        } else if depth < MAX_DEPTH && !on_stack(dep, &stack, depth) {
            stack[depth] = (dep, 0);
            depth += 1;
        }
    }
    false
}

const fn on_stack(f: &FnSource, stack: &[(&FnSource, usize)], depth: usize) -> bool {
    let mut i = 0;
    while i < depth {
        if same_function(f, stack[i].0) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether no function on the stack comes before `root` in (file, line) order.
const fn first_on_stack(root: &FnSource, stack: &[(&FnSource, usize)], depth: usize) -> bool {
    let mut i = 1;
    while i < depth {
        if comes_before(stack[i].0, root) {
            return false;
        }
        i += 1;
    }
    true
}

const fn same_function(a: &FnSource, b: &FnSource) -> bool {
    a.line == b.line && same_str(a.name, b.name) && same_str(a.file, b.file)
}

const fn comes_before(a: &FnSource, b: &FnSource) -> bool {
    match compare_str(a.file, b.file) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => a.line < b.line,
    }
}

const fn same_str(a: &str, b: &str) -> bool {
    matches!(compare_str(a, b), std::cmp::Ordering::Equal)
}

const fn compare_str(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return if a[i] < b[i] {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            };
        }
        i += 1;
    }
    if a.len() < b.len() {
        std::cmp::Ordering::Less
    } else if a.len() > b.len() {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Equal
    }
}
