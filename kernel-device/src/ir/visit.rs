//! Generic walkers over a function's IR (its statement tree and expression arena), which
//! every stage that analyses or rewrites code uses instead of a match of its own: direct
//! children of an expression, every expression or place in a block, the `let`s of a
//! block, the locals a statement assigns.

use std::collections::HashSet;

use super::{Block, Expr, ExprKind, Function, Handle, Local, Place, PlaceRoot, Projection, Stmt};

/// Calls `f` on each direct sub-expression of a (simple) expression.
pub fn visit_children(kind: &ExprKind, mut f: impl FnMut(Handle<Expr>)) {
    let place = |p: &Place, f: &mut dyn FnMut(Handle<Expr>)| {
        if let PlaceRoot::Pointee(h) = p.root {
            f(h);
        }
        for pr in &p.projections {
            if let Projection::Index(i) = pr {
                f(*i);
            }
        }
    };
    match kind {
        ExprKind::Literal(_) | ExprKind::Local(_) => {}
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => f(*operand),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            f(*lhs);
            f(*rhs)
        }
        ExprKind::Load(p) | ExprKind::AddressOf { place: p, .. } => place(p, &mut f),
        ExprKind::RefToSlice(x) | ExprKind::Len(x) | ExprKind::Field { base: x, .. } => f(*x),
        ExprKind::SubSlice {
            slice, start, end, ..
        } => {
            f(*slice);
            start.iter().chain(end.iter()).for_each(|h| f(*h));
        }
        ExprKind::SplitAt { slice, mid } => {
            f(*slice);
            f(*mid)
        }
        ExprKind::DynamicSharedTake { count, .. } => f(*count),
        ExprKind::Array(items) | ExprKind::Tuple(items) => items.iter().for_each(|h| f(*h)),
        ExprKind::Splat { value, .. } => f(*value),
        ExprKind::Intrinsic { args, .. } | ExprKind::Call { args, .. } => {
            args.iter().for_each(|h| f(*h))
        }
        ExprKind::If { .. }
        | ExprKind::Loop { .. }
        | ExprKind::Break { .. }
        | ExprKind::Continue { .. }
        | ExprKind::Return(_)
        | ExprKind::Block(_) => {}
    }
}

/// Locals a statement assigns (a place rooted at them written, or a dynamic-shared
/// cursor advanced) anywhere inside it.
pub fn assigned_in_stmt(func: &Function, stmt: &Stmt, out: &mut HashSet<Handle<Local>>) {
    let mut exprs = Vec::new();
    match stmt {
        Stmt::Let { init, .. } => exprs.extend(init.iter().copied()),
        Stmt::Assign { place, value, .. } => {
            if let PlaceRoot::Local(l) = place.root {
                out.insert(l);
            }
            exprs.push(*value);
        }
        Stmt::Expr(e) => exprs.push(*e),
        // print
        Stmt::Print(p) => exprs.extend(p.args.iter().copied()),
        Stmt::While { cond, body, .. } => {
            exprs.push(*cond);
            assigned_in_block(func, body, out);
        }
        Stmt::ForRange { body, .. } => assigned_in_block(func, body, out),
        Stmt::Versioned(v) => {
            assigned_in_block(func, &v.fast, out);
            assigned_in_block(func, &v.checked, out);
        }
        Stmt::PredicatedPrefetch(body) => assigned_in_block(func, body, out),
    }
    for e in exprs {
        assigned_in_expr(func, e, out);
    }
}

pub fn assigned_in_block(func: &Function, block: &Block, out: &mut HashSet<Handle<Local>>) {
    for st in &block.stmts {
        assigned_in_stmt(func, st, out);
    }
    if let Some(t) = block.tail {
        assigned_in_expr(func, t, out);
    }
}

pub fn assigned_in_expr(func: &Function, h: Handle<Expr>, out: &mut HashSet<Handle<Local>>) {
    let Some(e) = func.exprs.get(h) else {
        return;
    };
    match &e.kind {
        ExprKind::DynamicSharedTake { cursor, count, .. } => {
            out.insert(*cursor);
            assigned_in_expr(func, *count, out);
        }
        ExprKind::If {
            cond,
            then_block,
            else_block,
        } => {
            assigned_in_expr(func, *cond, out);
            assigned_in_block(func, then_block, out);
            if let Some(b) = else_block {
                assigned_in_block(func, b, out);
            }
        }
        ExprKind::Loop { body, .. } | ExprKind::Block(body) => assigned_in_block(func, body, out),
        ExprKind::Break { value, .. } | ExprKind::Return(value) => {
            if let Some(v) = value {
                assigned_in_expr(func, *v, out);
            }
        }
        kind => visit_children(kind, |c| assigned_in_expr(func, c, out)),
    }
}

/// Calls `f` on every `let` (local, initialiser) in `block`, nested ones included.
pub fn lets_in_block(
    func: &Function,
    block: &Block,
    f: &mut dyn FnMut(Handle<Local>, Option<Handle<Expr>>),
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let { local, init } => {
                f(*local, *init);
                if let Some(i) = init {
                    blocks_in_expr(func, *i, &mut |b| lets_in_block(func, b, f));
                }
            }
            Stmt::Assign { value, .. } => {
                blocks_in_expr(func, *value, &mut |b| lets_in_block(func, b, f))
            }
            Stmt::Expr(e) => blocks_in_expr(func, *e, &mut |b| lets_in_block(func, b, f)),
            // print
            Stmt::Print(p) => {
                for e in &p.args {
                    blocks_in_expr(func, *e, &mut |b| lets_in_block(func, b, f));
                }
            }
            Stmt::While { body, .. } | Stmt::ForRange { body, .. } => lets_in_block(func, body, f),
            Stmt::Versioned(v) => {
                lets_in_block(func, &v.fast, f);
                lets_in_block(func, &v.checked, f);
            }
            Stmt::PredicatedPrefetch(body) => lets_in_block(func, body, f),
        }
    }
    if let Some(t) = block.tail {
        blocks_in_expr(func, t, &mut |b| lets_in_block(func, b, f));
    }
}

/// Calls `f` on the blocks directly inside expression `h` (an `if`'s, a `loop`'s, a
/// block expression's), looking through every other expression.
pub fn blocks_in_expr(func: &Function, h: Handle<Expr>, f: &mut dyn FnMut(&Block)) {
    let Some(e) = func.exprs.get(h) else {
        return;
    };
    match &e.kind {
        ExprKind::If {
            cond,
            then_block,
            else_block,
        } => {
            blocks_in_expr(func, *cond, f);
            f(then_block);
            if let Some(b) = else_block {
                f(b);
            }
        }
        ExprKind::Loop { body, .. } | ExprKind::Block(body) => f(body),
        ExprKind::Break { value, .. } | ExprKind::Return(value) => {
            if let Some(v) = value {
                blocks_in_expr(func, *v, f);
            }
        }
        kind => visit_children(kind, |c| blocks_in_expr(func, c, f)),
    }
}

/// Calls `f` on every statement of `func`, wherever it sits: in the body, in a block that
/// an expression holds (`if`, `loop`, block expressions) or in one that a statement holds
/// (loops, versioned copies, predicated prefetches). Blocks are visited last-found first;
/// callers that number what they find (the simulator's loop slots) rely on that order.
pub fn stmts_in_function<'f>(func: &'f Function, f: &mut dyn FnMut(&'f Stmt)) {
    blocks_in_function(func, &mut |block| block.stmts.iter().for_each(&mut *f));
}

/// Calls `f` on every block of `func`: its body, the blocks expressions hold and those
/// statements hold, in [`stmts_in_function`]'s order (a block's statements are all
/// visited before the blocks they hold).
pub fn blocks_in_function<'f>(func: &'f Function, f: &mut dyn FnMut(&'f Block)) {
    let mut blocks: Vec<&Block> = vec![&func.body];
    for (_, e) in func.exprs.iter() {
        match &e.kind {
            ExprKind::If {
                then_block,
                else_block,
                ..
            } => {
                blocks.push(then_block);
                blocks.extend(else_block.iter());
            }
            ExprKind::Loop { body, .. } | ExprKind::Block(body) => blocks.push(body),
            _ => {}
        }
    }
    while let Some(block) = blocks.pop() {
        f(block);
        for stmt in &block.stmts {
            match stmt {
                Stmt::While { body, .. } | Stmt::ForRange { body, .. } => blocks.push(body),
                Stmt::Versioned(v) => blocks.extend([&v.fast, &v.checked]),
                Stmt::PredicatedPrefetch(body) => blocks.push(body),
                Stmt::Let { .. } | Stmt::Assign { .. } | Stmt::Expr(_) | Stmt::Print(_) => {}
            }
        }
    }
}

/// Calls `f` on every expression (handle and node) in `block`, nested ones included.
pub fn exprs_in_block(func: &Function, block: &Block, f: &mut dyn FnMut(Handle<Expr>, &Expr)) {
    walk_block(func, block, f, &mut |_| {});
}

/// Calls `f` on `h` and every expression nested in it.
pub fn exprs_in_expr(func: &Function, h: Handle<Expr>, f: &mut dyn FnMut(Handle<Expr>, &Expr)) {
    walk_expr(func, h, f, &mut |_| {});
}

/// Calls `f` on every place (read, written or borrowed) in `block`, nested ones included.
pub fn places_in_block(func: &Function, block: &Block, f: &mut dyn FnMut(&Place)) {
    // Both callbacks report places: they share `f`, one call at a time.
    let f = std::cell::RefCell::new(f);
    walk_block(
        func,
        block,
        &mut |_, e| {
            if let ExprKind::Load(place) | ExprKind::AddressOf { place, .. } = &e.kind {
                (f.borrow_mut())(place);
            }
        },
        &mut |place| (f.borrow_mut())(place),
    );
}

/// Walks `block`: `on_expr` on every expression, `on_assigned` on every place a
/// statement assigns, nested blocks included.
fn walk_block(
    func: &Function,
    block: &Block,
    on_expr: &mut dyn FnMut(Handle<Expr>, &Expr),
    on_assigned: &mut dyn FnMut(&Place),
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let { init, .. } => {
                if let Some(h) = init {
                    walk_expr(func, *h, on_expr, on_assigned);
                }
            }
            Stmt::Assign { place, value, .. } => {
                on_assigned(place);
                visit_place_exprs(place, &mut |h| walk_expr(func, h, on_expr, on_assigned));
                walk_expr(func, *value, on_expr, on_assigned);
            }
            Stmt::Expr(e) => walk_expr(func, *e, on_expr, on_assigned),
            // print
            Stmt::Print(p) => {
                for e in &p.args {
                    walk_expr(func, *e, on_expr, on_assigned);
                }
            }
            Stmt::While { cond, body, .. } => {
                walk_expr(func, *cond, on_expr, on_assigned);
                walk_block(func, body, on_expr, on_assigned);
            }
            Stmt::ForRange {
                start,
                end,
                step,
                body,
                ..
            } => {
                for h in [Some(*start), Some(*end), *step].into_iter().flatten() {
                    walk_expr(func, h, on_expr, on_assigned);
                }
                walk_block(func, body, on_expr, on_assigned);
            }
            Stmt::Versioned(v) => {
                walk_block(func, &v.fast, on_expr, on_assigned);
                walk_block(func, &v.checked, on_expr, on_assigned);
            }
            Stmt::PredicatedPrefetch(body) => walk_block(func, body, on_expr, on_assigned),
        }
    }
    if let Some(t) = block.tail {
        walk_expr(func, t, on_expr, on_assigned);
    }
}

fn walk_expr(
    func: &Function,
    h: Handle<Expr>,
    on_expr: &mut dyn FnMut(Handle<Expr>, &Expr),
    on_assigned: &mut dyn FnMut(&Place),
) {
    let Some(e) = func.exprs.get(h) else {
        return;
    };
    on_expr(h, e);
    match &e.kind {
        ExprKind::Load(place) | ExprKind::AddressOf { place, .. } => {
            visit_place_exprs(place, &mut |c| walk_expr(func, c, on_expr, on_assigned));
        }
        ExprKind::If { cond, .. } => {
            walk_expr(func, *cond, on_expr, on_assigned);
            blocks_in_expr(func, h, &mut |b| walk_block(func, b, on_expr, on_assigned));
        }
        ExprKind::Loop { .. } | ExprKind::Block(_) => {
            blocks_in_expr(func, h, &mut |b| walk_block(func, b, on_expr, on_assigned))
        }
        ExprKind::Break { value, .. } | ExprKind::Return(value) => {
            if let Some(v) = value {
                walk_expr(func, *v, on_expr, on_assigned);
            }
        }
        kind => visit_children(kind, |c| walk_expr(func, c, on_expr, on_assigned)),
    }
}

/// Calls `f` on a place's root expression and index expressions.
pub fn visit_place_exprs(place: &Place, f: &mut dyn FnMut(Handle<Expr>)) {
    if let PlaceRoot::Pointee(h) = place.root {
        f(h);
    }
    for p in &place.projections {
        if let Projection::Index(i) = p {
            f(*i);
        }
    }
}
