//! What a spin waits for: given the memory a spinning loop last read, the places in
//! the kernel's code that write that memory, so that a deadlock report names the
//! store the spinners wait on (none of which ran while they spun), or says that the
//! kernel's code never writes it and nothing can end the wait.
//!
//! The writers are found in the code, not in the run: a store to a slice parameter in
//! the kernel's own body, or to a shared array (a module global) anywhere. A store
//! through a device function's slice parameter is not traced back to the argument.

use std::collections::BTreeSet;

use super::fault::Site;
use super::launch::Launch;
use super::pointer::{offset_of, region_of};
use crate::ir::{Block, ExprKind, Function, Handle, Intrinsic, Local, PlaceRoot, SourceLoc, Stmt};

/// A clause for a deadlock message about threads spinning on a read of `addr` at
/// `loc` of function `func`: "; they read X at SITE, which ...".
pub fn waited_for(launch: &Launch, addr: u64, func: usize, loc: SourceLoc) -> String {
    // Hopper: a wait on an mbarrier's phase says what the phase misses.
    if let Some(clause) = launch.mbarriers.waited_for(addr) {
        return clause;
    }
    let region = region_of(addr);
    let Some(info) = launch.regions.get(region) else {
        return String::new();
    };
    let reader = site(&launch.module.functions[Handle::new(func)], loc);
    let location = launch.describe(region, offset_of(addr));
    let mut writers: BTreeSet<(String, u32, u32)> = BTreeSet::new();
    for (index, f) in launch.module.functions.iter() {
        let kernel = index.index() == launch.kernel;
        let names_region = |root: &PlaceRoot| match *root {
            PlaceRoot::Global(g) => launch.global_region.get(g.index()) == Some(&region),
            PlaceRoot::Pointee(e) => kernel && is_param_named(f, e, &info.name),
            PlaceRoot::Local(_) => false,
        };
        let (mut stores, mut atomics) = (Vec::new(), Vec::new());
        let mut visit = |stmt: &Stmt| {
            if let Stmt::Assign { place, .. } = stmt {
                if names_region(&place.root) {
                    stores.push(place.loc);
                }
            }
        };
        walk_block(&f.body, &mut visit);
        for (h, expr) in f.exprs.iter() {
            match &expr.kind {
                ExprKind::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    walk_block(then_block, &mut visit);
                    if let Some(b) = else_block {
                        walk_block(b, &mut visit);
                    }
                }
                ExprKind::Loop { body, .. } | ExprKind::Block(body) => walk_block(body, &mut visit),
                ExprKind::Intrinsic {
                    intrinsic: Intrinsic::Atomic { .. },
                    args,
                } => {
                    let target = args.first().map(|&a| &f.exprs[a].kind);
                    let hit = match target {
                        Some(ExprKind::Local(_)) => {
                            kernel && is_param_named(f, args[0], &info.name)
                        }
                        Some(ExprKind::Load(place) | ExprKind::AddressOf { place, .. }) => {
                            names_region(&place.root)
                        }
                        _ => false,
                    };
                    if hit {
                        atomics.push(f.loc_of(h));
                    }
                }
                _ => {}
            }
        }
        for at in stores.into_iter().chain(atomics) {
            let s = site(f, at);
            if s != reader {
                writers.insert((s.file, s.line, s.column));
            }
        }
    }
    if writers.is_empty() {
        return format!(
            "; they read {location} at {reader}, which no code of the kernel writes: nothing can end the wait"
        );
    }
    let sites: Vec<String> = writers
        .into_iter()
        .map(|(file, line, column)| format!("{file}:{line}:{column}"))
        .collect();
    format!(
        "; they read {location} at {reader}, which the kernel writes at {}, but no thread did while they spun",
        sites.join(", ")
    )
}

/// Whether expression `e` of `f` reads the parameter named `name`.
fn is_param_named(f: &Function, e: Handle<crate::ir::Expr>, name: &str) -> bool {
    let ExprKind::Local(l) = f.exprs[e].kind else {
        return false;
    };
    let local: &Local = &f.locals[l];
    local.name == name && f.params.iter().any(|p| p.local == l)
}

fn site(f: &Function, loc: SourceLoc) -> Site {
    Site {
        file: f.file.clone(),
        line: loc.line,
        column: loc.column,
    }
}

/// Calls `visit` on every statement of `block` and of the loops nested in it as
/// statements (blocks inside expressions are reached through the expression arena).
fn walk_block(block: &Block, visit: &mut impl FnMut(&Stmt)) {
    for stmt in &block.stmts {
        visit(stmt);
        match stmt {
            Stmt::While { body, .. } | Stmt::ForRange { body, .. } => walk_block(body, visit),
            Stmt::Versioned(v) => {
                walk_block(&v.fast, visit);
                walk_block(&v.checked, visit);
            }
            Stmt::PredicatedPrefetch(body) => walk_block(body, visit),
            _ => {}
        }
    }
}
