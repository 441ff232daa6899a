//! Recursion through the call graph (direct or mutual): GPU threads have small fixed
//! stacks, so cudajit rejects every cycle, as Numba does for CUDA.

use super::ValidationError;
use crate::ir::{self, ExprKind};

pub fn check(module: &ir::Module, errors: &mut Vec<ValidationError>) {
    let n = module.functions.len();
    // Callees of each function, from every call expression in its arena.
    let callees: Vec<Vec<usize>> = module
        .functions
        .iter()
        .map(|(_, f)| {
            let mut out: Vec<usize> = Vec::new();
            for (_, e) in f.exprs.iter() {
                if let ExprKind::Call { function, .. } = &e.kind {
                    if function.index() < n && !out.contains(&function.index()) {
                        out.push(function.index());
                    }
                }
            }
            out
        })
        .collect();
    let names: Vec<&str> = module
        .functions
        .iter()
        .map(|(_, f)| f.name.as_str())
        .collect();

    // Iterative DFS with colours; each back edge is one cycle, reported at the
    // function where it closes, once per set of members.
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Grey,
        Black,
    }
    let mut colour = vec![Colour::White; n];
    let mut reported: Vec<Vec<usize>> = Vec::new();
    for root in 0..n {
        if colour[root] != Colour::White {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        colour[root] = Colour::Grey;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&callee) = callees[node].get(*next) {
                *next += 1;
                match colour[callee] {
                    Colour::White => {
                        colour[callee] = Colour::Grey;
                        stack.push((callee, 0));
                    }
                    Colour::Grey => {
                        let start = stack.iter().position(|(f, _)| *f == callee).unwrap_or(0);
                        let members: Vec<usize> = stack[start..].iter().map(|(f, _)| *f).collect();
                        let mut key = members.clone();
                        key.sort_unstable();
                        if !reported.contains(&key) {
                            reported.push(key);
                            let mut cycle: Vec<String> =
                                members.iter().map(|i| names[*i].to_string()).collect();
                            cycle.push(names[callee].to_string());
                            errors.push(ValidationError::Recursion {
                                function: names[callee].to_string(),
                                cycle,
                            });
                        }
                    }
                    Colour::Black => {}
                }
            } else {
                colour[node] = Colour::Black;
                stack.pop();
            }
        }
    }
}
