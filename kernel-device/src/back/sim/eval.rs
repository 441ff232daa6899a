//! Statements and expressions of one warp, under masks (see [`super::warp`]).

use super::diverge::SplitCheck;
use super::fault::R;
use super::lanes::lanes;
use super::plan::Home;
use super::scalar;
use super::warp::{Frame, Warp};
use crate::ir::checks;
use crate::ir::range::RangeElements;
use crate::ir::{Block, Expr, ExprKind, Handle, LogicalOp, ScalarType, Stmt, Type};

impl Warp<'_, '_> {
    /// Runs `block` for the lanes of `mask`; returns the lanes that reached its end
    /// (its tail value, if any, is in the tail expression's slots).
    pub fn exec_block(&mut self, fr: &mut Frame, block: &Block, mask: u32) -> R<u32> {
        self.exec_from(fr, block, 0, mask)
    }

    /// Runs `stmt` for the lanes of `mask`; returns the lanes that completed it (never
    /// one that panicked in it).
    pub(super) fn exec_stmt(&mut self, fr: &mut Frame, stmt: &Stmt, mask: u32) -> R<u32> {
        let done = self.exec_stmt_lanes(fr, stmt, mask)?;
        Ok(done & !self.panicked)
    }

    fn exec_stmt_lanes(&mut self, fr: &mut Frame, stmt: &Stmt, mask: u32) -> R<u32> {
        self.steps += 1;
        match stmt {
            Stmt::Let { local, init } => {
                let Some(init) = init else {
                    return Ok(mask);
                };
                let m = self.eval(fr, *init, mask)?;
                let from = self.slot_of(fr, *init);
                match self.home(fr, local.index()) {
                    Home::Reg(slot) => {
                        let w = self.width_of(fr, *init);
                        fr.copy(slot, from, w, m);
                    }
                    Home::Mem(offset) => {
                        let ty = &self.func(fr.func).locals[*local].ty;
                        for lane in lanes(m) {
                            let ptr = self.local_ptr(fr, offset);
                            {
                                let loc = self.func(fr.func).loc_of(*init);
                                self.store_value(fr, lane, ptr, ty, from, loc)?;
                            }
                        }
                    }
                }
                Ok(m)
            }
            Stmt::Assign { place, op, value } => self.assign(fr, place, *op, *value, mask),
            Stmt::Expr(e) => self.eval(fr, *e, mask),
            Stmt::While { id, cond, body } => {
                let ix = self.plan(fr.func).loops[&id.0].index;
                fr.loops[ix] = (0, 0);
                let cond_slot = self.slot_of(fr, *cond);
                let (mut live, mut done) = (mask, 0u32);
                let may_park = std::mem::take(&mut self.park_ok);
                let mut split = SplitCheck::default();
                while live != 0 {
                    let m = self.eval(fr, *cond, live)?;
                    let mut go = 0;
                    for lane in lanes(m) {
                        go |= (fr.get(cond_slot, lane) as u32 & 1) << lane;
                    }
                    done |= m & !go;
                    if go == 0 {
                        break;
                    }
                    fr.loops[ix].1 = 0;
                    let out = self.exec_block(fr, body, go)?;
                    live = out | fr.loops[ix].1;
                    let loc = self.func(fr.func).loc_of(*cond);
                    self.back_edge(fr, ix, loc, live)?;
                    if may_park && self.should_park(fr, &mut split, live, done | fr.loops[ix].0) {
                        self.parked = live;
                        break;
                    }
                }
                Ok(done | fr.loops[ix].0)
            }
            Stmt::ForRange { .. } => self.exec_for(fr, stmt, mask, false),
            Stmt::Versioned(v) => self.exec_versioned(fr, v, mask),
            // Predicated loads are the NVVM writer's way of running the block.
            Stmt::PredicatedPrefetch(body) => self.exec_block(fr, body, mask),
            // print
            Stmt::Print(p) => self.exec_print(fr, p, mask),
        }
    }

    /// Evaluates a `for` loop's start, end and step, in that order, into their slots;
    /// a zero step panics. Returns the lanes that go on to the loop.
    pub(super) fn for_bounds(
        &mut self,
        fr: &mut Frame,
        [start, end]: [Handle<Expr>; 2],
        step: Option<Handle<Expr>>,
        mask: u32,
    ) -> R<u32> {
        let mut m = self.eval(fr, start, mask)?;
        m = self.eval(fr, end, m)?;
        if let Some(step) = step {
            m = self.eval(fr, step, m)?;
            let s = self.slot_of(fr, step);
            let loc = self.func(fr.func).loc_of(step);
            for lane in lanes(m).filter(|&l| fr.get(s, l) == 0) {
                self.panic_at(fr, loc, lane, "assertion failed: step != 0".into());
            }
            m &= !self.panicked;
        }
        Ok(m)
    }

    /// A `for` loop (`stmt`, a `Stmt::ForRange`); with `evaluated`, its start, end and
    /// step are already in their slots (a versioned loop's, see `guard`).
    pub(super) fn exec_for(
        &mut self,
        fr: &mut Frame,
        stmt: &Stmt,
        mask: u32,
        evaluated: bool,
    ) -> R<u32> {
        let Stmt::ForRange {
            id,
            var,
            start,
            end,
            inclusive,
            step,
            reverse,
            body,
            unroll: _,
        } = stmt
        else {
            return Ok(mask);
        };
        let plan = self.plan(fr.func).loops[&id.0];
        let ix = plan.index;
        let (remaining, current, stride) =
            (plan.state_slot, plan.state_slot + 1, plan.state_slot + 2);
        let ty = self.func(fr.func).locals[*var]
            .ty
            .scalar()
            .unwrap_or(ScalarType::I64);
        let m = if evaluated {
            mask
        } else {
            self.for_bounds(fr, [*start, *end], *step, mask)?
        };
        let (ss, es) = (self.slot_of(fr, *start), self.slot_of(fr, *end));
        for lane in lanes(m) {
            let s = scalar::int_value(ty, fr.get(ss, lane));
            let e = scalar::int_value(ty, fr.get(es, lane));
            let by = match step {
                Some(h) => fr.get(self.slot_of(fr, *h), lane),
                None => 1,
            };
            let elements = RangeElements::new(s, e, *inclusive, by, *reverse);
            fr.set(remaining, lane, elements.count);
            fr.set(current, lane, scalar::truncate(ty, elements.first as u64));
            fr.set(stride, lane, by);
        }
        let Home::Reg(var_slot) = self.home(fr, var.index()) else {
            return Ok(m);
        };
        fr.loops[ix] = (0, 0);
        let (mut live, mut done) = (m, 0u32);
        while live != 0 {
            let mut go = 0;
            for lane in lanes(live) {
                if fr.get(remaining, lane) > 0 {
                    go |= 1 << lane;
                    fr.set(var_slot, lane, fr.get(current, lane));
                }
            }
            done |= live & !go;
            if go == 0 {
                break;
            }
            fr.loops[ix].1 = 0;
            let out = self.exec_block(fr, body, go)?;
            live = out | fr.loops[ix].1;
            let loc = self.func(fr.func).loc_of(*start);
            self.back_edge(fr, ix, loc, live)?;
            for lane in lanes(live) {
                let left = fr.get(remaining, lane) - 1;
                fr.set(remaining, lane, left);
                if left > 0 {
                    let cur = scalar::int_value(ty, fr.get(current, lane));
                    let by = i128::from(fr.get(stride, lane));
                    let next = if *reverse { cur - by } else { cur + by };
                    fr.set(current, lane, scalar::truncate(ty, next as u64));
                }
            }
        }
        Ok(done | fr.loops[ix].0)
    }

    /// Evaluates `e` for the lanes of `mask` into its slots; returns the lanes that
    /// completed it (never one that panicked in it, or in a call it made).
    pub fn eval(&mut self, fr: &mut Frame, e: Handle<Expr>, mask: u32) -> R<u32> {
        let done = self.eval_lanes(fr, e, mask)?;
        Ok(done & !self.panicked)
    }

    fn eval_lanes(&mut self, fr: &mut Frame, e: Handle<Expr>, mask: u32) -> R<u32> {
        if mask == 0 {
            return Ok(0);
        }
        self.steps += 1;
        let f = self.func(fr.func);
        let expr = &f.exprs[e];
        let out = self.slot_of(fr, e);
        match &expr.kind {
            ExprKind::Literal(lit) => {
                let s = expr.ty.scalar().unwrap_or(ScalarType::Bool);
                let v = scalar::literal(s, lit);
                for lane in lanes(mask) {
                    fr.set(out, lane, v);
                }
                Ok(mask)
            }
            ExprKind::Local(l) => {
                match self.home(fr, l.index()) {
                    Home::Reg(slot) => {
                        let w = self.width_of(fr, e);
                        fr.copy(out, slot, w, mask);
                    }
                    Home::Mem(offset) => {
                        for lane in lanes(mask) {
                            let ptr = self.local_ptr(fr, offset);
                            self.load_value(fr, lane, ptr, &expr.ty, out, f.loc_of(e))?;
                        }
                    }
                }
                Ok(mask)
            }
            ExprKind::Unary { op, operand } => {
                let m = self.eval(fr, *operand, mask)?;
                let s = expr.ty.scalar().unwrap_or(ScalarType::Bool);
                let a = self.slot_of(fr, *operand);
                for lane in lanes(m) {
                    fr.set(out, lane, scalar::unary(*op, s, fr.get(a, lane)));
                }
                Ok(m)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let mut m = self.eval(fr, *lhs, mask)?;
                m = self.eval(fr, *rhs, m)?;
                let s = f.exprs[*lhs].ty.scalar().unwrap_or(ScalarType::Bool);
                let (a, b) = (self.slot_of(fr, *lhs), self.slot_of(fr, *rhs));
                let (x, y) = (*fr.reg(a), *fr.reg(b));
                let mut failed = Vec::new();
                scalar::binary_lanes(*op, s, &x, &y, fr.reg_mut(out), m, |lane, message| {
                    failed.push((lane, message))
                });
                for (lane, message) in failed {
                    self.panic_at(fr, f.loc_of(e), lane, message.into());
                }
                Ok(m)
            }
            ExprKind::Logical { op, lhs, rhs } => {
                let m = self.eval(fr, *lhs, mask)?;
                let a = self.slot_of(fr, *lhs);
                let mut need = 0u32;
                for lane in lanes(m) {
                    let v = fr.get(a, lane) != 0;
                    fr.set(out, lane, u64::from(v));
                    if v == (*op == LogicalOp::And) {
                        need |= 1 << lane;
                    }
                }
                let done = self.eval(fr, *rhs, need)?;
                let b = self.slot_of(fr, *rhs);
                fr.copy(out, b, 1, done);
                Ok((m & !need) | done)
            }
            ExprKind::Cast { operand, to } => {
                let m = self.eval(fr, *operand, mask)?;
                let from = f.exprs[*operand].ty.scalar().unwrap_or(*to);
                let a = self.slot_of(fr, *operand);
                for lane in lanes(m) {
                    fr.set(out, lane, scalar::cast(from, *to, fr.get(a, lane)));
                }
                Ok(m)
            }
            ExprKind::Load(place) => self.load_place(fr, place, e, mask),
            ExprKind::AddressOf { place, .. } => self.address_of(fr, place, e, mask),
            ExprKind::RefToSlice(r) => {
                let m = self.eval(fr, *r, mask)?;
                let len = match &f.exprs[*r].ty {
                    Type::Ref { pointee, .. } => match &**pointee {
                        Type::Array { len, .. } => *len,
                        _ => 0,
                    },
                    _ => 0,
                };
                let a = self.slot_of(fr, *r);
                for lane in lanes(m) {
                    fr.set(out, lane, fr.get(a, lane));
                    fr.set(out + 1, lane, len);
                }
                Ok(m)
            }
            ExprKind::Len(s) => {
                let m = self.eval(fr, *s, mask)?;
                let a = self.slot_of(fr, *s);
                fr.copy(out, a + 1, 1, m);
                Ok(m)
            }
            ExprKind::SubSlice {
                slice,
                start,
                end,
                inclusive,
            } => self.sub_slice(fr, e, *slice, *start, *end, *inclusive, mask),
            ExprKind::SplitAt { slice, mid } => self.split_at(fr, e, *slice, *mid, mask),
            ExprKind::DynamicSharedTake {
                cursor,
                elem,
                count,
            } => {
                let m = self.eval(fr, *count, mask)?;
                let Home::Reg(cur) = self.home(fr, cursor.index()) else {
                    return Ok(m);
                };
                let c = self.slot_of(fr, *count);
                let size = u64::from(elem.size_bytes());
                let available = u64::from(self.launch.shape.dynamic_shared_bytes);
                let region = self.launch.dynamic_region as u64;
                for lane in lanes(m) {
                    match checks::dynamic_shared_take(
                        fr.get(cur, lane),
                        size,
                        size,
                        fr.get(c, lane),
                        available,
                    ) {
                        Ok((at, next)) => {
                            fr.set(out, lane, super::pointer::ptr(region, at));
                            fr.set(out + 1, lane, fr.get(c, lane));
                            fr.set(cur, lane, next);
                        }
                        Err(fail) => self.panic_at(fr, f.loc_of(e), lane, fail.text()),
                    }
                }
                Ok(m)
            }
            ExprKind::Array(items) | ExprKind::Tuple(items) => {
                let mut m = mask;
                for item in items {
                    m = self.eval(fr, *item, m)?;
                }
                let mut at = out;
                for item in items {
                    let w = self.width_of(fr, *item);
                    let from = self.slot_of(fr, *item);
                    fr.copy(at, from, w, m);
                    at += w;
                }
                Ok(m)
            }
            ExprKind::Splat { value, len } => {
                let m = self.eval(fr, *value, mask)?;
                let w = self.width_of(fr, *value);
                let from = self.slot_of(fr, *value);
                for k in 0..*len as u32 {
                    fr.copy(out + k * w, from, w, m);
                }
                Ok(m)
            }
            ExprKind::Field { base, index } => {
                let m = self.eval(fr, *base, mask)?;
                let delta = match &f.exprs[*base].ty {
                    Type::Tuple(items) => super::plan::field_slot(items, *index),
                    Type::Struct(def) => match super::plan::struct_field(def, *index) {
                        Some((_, _, slot)) => slot,
                        None => return Ok(m),
                    },
                    _ => return Ok(m),
                };
                let from = self.slot_of(fr, *base) + delta;
                let w = self.width_of(fr, e);
                fr.copy(out, from, w, m);
                Ok(m)
            }
            ExprKind::Call { function, args } => self.call(fr, e, function.index(), args, mask),
            ExprKind::Intrinsic { intrinsic, args } => {
                self.intrinsic(fr, e, *intrinsic, args, mask)
            }
            ExprKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let m = self.eval(fr, *cond, mask)?;
                let c = fr.reg(self.slot_of(fr, *cond));
                let mut taken = 0u32;
                for lane in lanes(m) {
                    taken |= (c[lane] as u32 & 1) << lane;
                }
                let w = self.width_of(fr, e);
                let then_out = self.exec_block(fr, then_block, taken)?;
                if let Some(t) = then_block.tail {
                    let from = self.slot_of(fr, t);
                    fr.copy(out, from, w, then_out);
                }
                let rest = m & !taken;
                let else_out = match else_block {
                    Some(b) => {
                        let o = self.exec_block(fr, b, rest)?;
                        if let Some(t) = b.tail {
                            let from = self.slot_of(fr, t);
                            fr.copy(out, from, w, o);
                        }
                        o
                    }
                    None => rest,
                };
                Ok(then_out | else_out)
            }
            ExprKind::Loop { id, body } => {
                let ix = self.plan(fr.func).loops[&id.0].index;
                fr.loops[ix] = (0, 0);
                let mut live = mask;
                let may_park = std::mem::take(&mut self.park_ok);
                let mut split = SplitCheck::default();
                while live != 0 {
                    fr.loops[ix].1 = 0;
                    let o = self.exec_block(fr, body, live)?;
                    live = o | fr.loops[ix].1;
                    self.back_edge(fr, ix, f.loc_of(e), live)?;
                    if may_park && self.should_park(fr, &mut split, live, fr.loops[ix].0) {
                        self.parked = live;
                        break;
                    }
                }
                Ok(fr.loops[ix].0)
            }
            ExprKind::Break { target, value } => {
                let m = match value {
                    Some(v) => {
                        let m = self.eval(fr, *v, mask)?;
                        // The value goes to the `loop` expression's slots.
                        let to = self.plan(fr.func).loops[&target.0].value_slot;
                        let (from, w) = (self.slot_of(fr, *v), self.width_of(fr, *v));
                        fr.copy(to, from, w, m);
                        m
                    }
                    None => mask,
                };
                let ix = self.plan(fr.func).loops[&target.0].index;
                fr.loops[ix].0 |= m;
                Ok(0)
            }
            ExprKind::Continue { target } => {
                let ix = self.plan(fr.func).loops[&target.0].index;
                fr.loops[ix].1 |= mask;
                Ok(0)
            }
            ExprKind::Return(value) => {
                let m = match value {
                    Some(v) => {
                        let m = self.eval(fr, *v, mask)?;
                        let (to, from) = (self.plan(fr.func).ret_slot, self.slot_of(fr, *v));
                        let w = self.width_of(fr, *v);
                        fr.copy(to, from, w, m);
                        m
                    }
                    None => mask,
                };
                fr.returned |= m;
                if fr.depth == 0 {
                    self.exited |= m;
                }
                Ok(0)
            }
            ExprKind::Block(b) => {
                let o = self.exec_block(fr, b, mask)?;
                if let Some(t) = b.tail {
                    let (from, w) = (self.slot_of(fr, t), self.width_of(fr, e));
                    fr.copy(out, from, w, o);
                }
                Ok(o)
            }
        }
    }

    /// Evaluates a call's arguments in order; the lanes still running after them.
    pub fn eval_args(&mut self, fr: &mut Frame, args: &[Handle<Expr>], mask: u32) -> R<u32> {
        let mut m = mask;
        for a in args {
            m = self.eval(fr, *a, m)?;
        }
        Ok(m)
    }

    fn call(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        callee: usize,
        args: &[Handle<Expr>],
        mask: u32,
    ) -> R<u32> {
        let m = self.eval_args(fr, args, mask)?;
        if m == 0 {
            return Ok(0);
        }
        let mut inner = self.push_frame(callee, fr.depth + 1)?;
        let g = self.func(callee);
        for (p, a) in g.params.iter().zip(args) {
            let from = self.slot_of(fr, *a);
            let w = self.width_of(fr, *a);
            match self.home(&inner, p.local.index()) {
                Home::Reg(slot) => {
                    for k in 0..w {
                        for lane in lanes(m) {
                            inner.set(slot + k, lane, fr.get(from + k, lane));
                        }
                    }
                }
                Home::Mem(offset) => {
                    // An array argument: the callee's own copy in its local memory.
                    for lane in lanes(m) {
                        let ptr = self.local_ptr(&inner, offset);
                        {
                            let loc = self.func(fr.func).loc_of(*a);
                            self.store_value(fr, lane, ptr, &p.ty, from, loc)?;
                        }
                    }
                }
            }
        }
        let done = self.exec_block(&mut inner, &g.body, m)?;
        if let Some(t) = g.body.tail {
            let (to, from, w) = (
                self.plan(callee).ret_slot,
                self.slot_of(&inner, t),
                self.width_of(&inner, t),
            );
            inner.copy(to, from, w, done);
        }
        let ret = self.plan(callee).ret_slot;
        let w = self.width_of(fr, e);
        let out = self.slot_of(fr, e);
        for k in 0..w {
            for lane in lanes(m) {
                fr.set(out + k, lane, inner.get(ret + k, lane));
            }
        }
        self.pop_frame(inner);
        Ok(m)
    }
}
