//! Statements of generated functions: bindings, assignments, `if`, loops over
//! ranges (at type limits too), `while`, `loop` with a value, labelled jumps, returns.

use super::gen::{FnGen, Var, MAX_DEPTH};
use super::types::{Ty, ALL, INTEGERS};

impl FnGen<'_> {
    // ---- statements -----------------------------------------------------------

    pub(super) fn block(&mut self, statements: u32) {
        self.scopes.push(Vec::new());
        self.indent += 1;
        for _ in 0..statements {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.statement();
        }
        self.indent -= 1;
        self.scopes.pop();
    }

    pub(super) fn statement(&mut self) {
        let nested = self.indent < 4;
        match self.rng.below(20) {
            0..=4 => self.let_statement(),
            5..=8 => self.assign_statement(),
            9 | 10 if nested => self.if_statement(),
            11 | 12 if nested => self.for_statement(),
            13 if nested => self.while_statement(),
            14 if nested => self.loop_statement(),
            15 if nested => self.labelled_statement(),
            16 => {
                let c = self.expr(Ty::Bool, 2, true).text;
                let e = self.expr(self.ret, 2, true).text;
                self.line(&format!("if {c} {{"));
                self.indent += 1;
                self.line(&format!("return {e};"));
                self.indent -= 1;
                self.line("}");
            }
            17 if self.in_plain_loop() => {
                let c = self.expr(Ty::Bool, 2, true).text;
                let jump = *self.rng.pick(&["break", "continue"]);
                self.line(&format!("if {c} {{"));
                self.indent += 1;
                self.line(&format!("{jump};"));
                self.indent -= 1;
                self.line("}");
            }
            18 => {
                let (t1, t2) = (*self.rng.pick(&ALL), *self.rng.pick(&ALL));
                let (a, b) = (self.fresh("t"), self.fresh("u"));
                let e1 = self.expr(t1, 2, false).text;
                let e2 = self.expr(t2, 2, false).text;
                self.line(&format!("let ({a}, {b}) = ({e1}, {e2});"));
                self.declare(&a, t1, false, false, false);
                self.declare(&b, t2, false, false, false);
            }
            _ => self.let_statement(),
        }
    }

    pub(super) fn let_statement(&mut self) {
        let ty = *self.rng.pick(&ALL);
        let name = self.fresh("v");
        let mutable = self.rng.chance(60);
        let m = if mutable { "mut " } else { "" };
        if self.rng.chance(25) {
            // No annotation: the type comes from the initialiser.
            let e = self.expr(ty, MAX_DEPTH, false).text;
            self.line(&format!("let {m}{name} = {e};"));
        } else {
            let e = self.expr(ty, MAX_DEPTH, true).text;
            self.line(&format!("let {m}{name}: {} = {e};", ty.name()));
        }
        self.declare(&name, ty, mutable, false, false);
    }

    pub(super) fn assign_statement(&mut self) {
        let targets: Vec<Var> = self
            .visible()
            .into_iter()
            .filter(|v| v.mutable && !v.frozen)
            .collect();
        if targets.is_empty() {
            return self.let_statement();
        }
        let v = self.rng.pick(&targets).clone();
        let ops: &[&str] = match v.ty {
            Ty::Bool => &["=", "&=", "|=", "^="],
            t if t.is_float() => &["=", "+=", "-=", "*=", "/=", "%="],
            _ => &[
                "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
            ],
        };
        let op = *self.rng.pick(ops);
        let value = match op {
            "<<=" | ">>=" => {
                let t = *self.rng.pick(&INTEGERS);
                self.expr(t, 2, false).text
            }
            "/=" | "%=" if v.ty.is_int() && self.rng.chance(75) => {
                format!("({} | 1)", self.expr(v.ty, 2, true).text)
            }
            _ => self.expr(v.ty, MAX_DEPTH, true).text,
        };
        self.line(&format!("{} {op} {value};", v.name));
    }

    pub(super) fn if_statement(&mut self) {
        let c = self.expr(Ty::Bool, MAX_DEPTH, true).text;
        self.line(&format!("if {c} {{"));
        let n = 1 + self.rng.below(3) as u32;
        self.block(n);
        if self.rng.chance(50) {
            if self.rng.chance(30) {
                let c2 = self.expr(Ty::Bool, 2, true).text;
                self.line(&format!("}} else if {c2} {{"));
                self.block(1);
            }
            self.line("} else {");
            let n = 1 + self.rng.below(2) as u32;
            self.block(n);
        }
        self.line("}");
    }

    /// A range over an integer type with at most 8 elements: random bounds, or
    /// bounds at the type's limits, with `.rev()` and `.step_by(n)` (`n` may be 0,
    /// which panics as std does).
    pub(super) fn range(&mut self) -> (String, Ty) {
        let ty = *self.rng.pick(&INTEGERS);
        let n = ty.name();
        let (lo, len) = (self.fresh("lo"), self.fresh("len"));
        let start = self.expr(ty, 2, true).text;
        let count = self.expr(ty, 2, false).text;
        self.line(&format!("let {lo}: {n} = {start};"));
        self.line(&format!("let {len}: {n} = {count} & 7;"));
        self.declare(&lo, ty, false, true, false);
        self.declare(&len, ty, false, true, false);
        let dots = if self.rng.chance(50) { "..=" } else { ".." };
        let mut range = match self.rng.below(4) {
            0 => format!("({n}::MAX - {len}){dots}{n}::MAX"),
            1 => format!("{n}::MIN..=({n}::MIN + {len})"),
            _ => format!("{lo}{dots}{lo}.wrapping_add({len})"),
        };
        range = format!("({range})");
        if self.rng.chance(40) {
            range = format!("{range}.rev()");
        }
        if self.rng.chance(40) {
            let s = self.expr(Ty::Usize, 2, true).text;
            let step = if self.rng.chance(85) {
                format!("({s}) % 3 + 1")
            } else {
                format!("({s}) % 3")
            };
            range = format!("{range}.step_by({step})");
        }
        (range, ty)
    }

    pub(super) fn for_statement(&mut self) {
        let (range, ty) = self.range();
        let var = self.fresh("i");
        self.line(&format!("for {var} in {range} {{"));
        self.scopes.push(Vec::new());
        self.declare(&var, ty, false, true, false);
        self.loops.push(None);
        let n = 1 + self.rng.below(3) as u32;
        self.block(n);
        self.loops.pop();
        self.scopes.pop();
        self.line("}");
    }

    pub(super) fn while_statement(&mut self) {
        let c = self.fresh("c");
        let limit = self.rng.below(8);
        self.line(&format!("let mut {c}: u32 = 0;"));
        self.declare(&c, Ty::U32, true, true, false);
        let cond = self.expr(Ty::Bool, 2, true).text;
        self.line(&format!("while {c} < {limit} && ({cond} || {c} < 3) {{"));
        self.indent += 1;
        self.line(&format!("{c} += 1;"));
        self.indent -= 1;
        self.loops.push(None);
        let n = 1 + self.rng.below(3) as u32;
        self.block(n);
        self.loops.pop();
        self.line("}");
    }

    pub(super) fn loop_statement(&mut self) {
        let ty = *self.rng.pick(&ALL);
        let (c, v) = (self.fresh("c"), self.fresh("v"));
        let limit = 1 + self.rng.below(6);
        self.line(&format!("let mut {c}: u32 = 0;"));
        self.declare(&c, Ty::U32, true, true, false);
        self.line(&format!("let {v}: {} = loop {{", ty.name()));
        self.indent += 1;
        self.line(&format!("{c} += 1;"));
        self.indent -= 1;
        // `break` inside must carry a value here: only the explicit one below.
        self.loops.push(Some(String::new()));
        let n = 1 + self.rng.below(2) as u32;
        self.block(n);
        self.indent += 1;
        let cond = self.expr(Ty::Bool, 2, true).text;
        let value = self.expr(ty, 2, true).text;
        self.line(&format!("if {c} >= {limit} || {cond} {{"));
        self.line(&format!("    break {value};"));
        self.line("}");
        self.indent -= 1;
        self.loops.pop();
        self.line("};");
        self.declare(&v, ty, false, false, false);
    }

    pub(super) fn labelled_statement(&mut self) {
        let label = format!("'{}", self.fresh("l"));
        let (outer, oty) = self.range();
        let i = self.fresh("i");
        self.line(&format!("{label}: for {i} in {outer} {{"));
        self.scopes.push(Vec::new());
        self.declare(&i, oty, false, true, false);
        self.indent += 1;
        let (inner, ity) = self.range();
        let j = self.fresh("j");
        self.line(&format!("for {j} in {inner} {{"));
        self.scopes.push(Vec::new());
        self.declare(&j, ity, false, true, false);
        self.indent += 1;
        let c1 = self.expr(Ty::Bool, 2, true).text;
        let c2 = self.expr(Ty::Bool, 2, true).text;
        self.line(&format!("if {c1} {{ continue {label}; }}"));
        self.line(&format!("if {c2} {{ break {label}; }}"));
        self.indent -= 1;
        self.loops.push(None);
        self.block(2);
        self.loops.pop();
        self.scopes.pop();
        self.line("}");
        self.indent -= 1;
        self.scopes.pop();
        self.line("}");
    }
}

// `break`/`continue` inside a `loop` that needs a value would not type-check: the
// statement generator only emits them when the innermost loop is a plain one.
impl FnGen<'_> {
    pub(super) fn in_plain_loop(&self) -> bool {
        matches!(self.loops.last(), Some(None))
    }
}
