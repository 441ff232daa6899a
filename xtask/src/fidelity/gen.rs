//! The random program generator: one program is a `#[device]` function `prog<N>` over
//! scalars (plus the shared table `tab: &[i64]`), up to three `#[device]` helpers
//! `prog<N>_<K>` it calls, a `#[kernel]` `kern<N>` that applies `prog<N>` to one input
//! tuple per thread, and the host glue `run_<N>` that launches the kernel and compares
//! it with `prog<N>` as rustc compiled it.
//!
//! What the programs cover: every scalar type as parameters, locals and results;
//! every operator (wrapping arithmetic, division and remainder with and without
//! possible zero divisors, shifts by amounts of any integer type and size, bitwise,
//! comparisons, short-circuit logic, compound assignment); `as` casts between all
//! types with literals at the saturation edges; literals in decimal, hex, octal, binary,
//! with `_`, suffixed or inferred from context (also from a device function's
//! parameter), f32 literals with more digits than f32 holds; `if`/`else if`/`else` (also
//! as expressions), blocks, tuples, `while`, `loop` with `break value`, `for` over
//! ranges (`..`, `..=`, `.rev()`, `.step_by(n)` with `n` possibly 0) including ranges
//! ending at a type's MAX or starting at its MIN, labelled `break`/`continue`, early
//! `return`; calls between device functions; slice indexing (in and out of bounds);
//! the exact float methods and, as a last operation, the libdevice transcendentals.
//!
//! Every program is valid Rust of the subset by construction. Values whose bits Rust
//! leaves unspecified are kept out of the compared results: the sign of a zero from
//! `min`/`max` of `+0.0` and `-0.0` (normalised by `+ 0.0`), the sign of a NaN a
//! computation produced (`copysign` takes its sign from a parameter or a literal, never
//! from a computed value; results compare NaN-ness, not payloads). Transcendental
//! functions (libdevice, within documented ulps) appear only as the last operation of
//! a program of the approximate class, so their error cannot be amplified by later
//! code or flip a comparison.

use super::types::{Ty, ALL, FLOAT_MAGNITUDES, INTEGERS};

/// splitmix64: each program has its own stream, so program N is the same whatever
/// the count.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next();
        r
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// How a program's result is compared with rustc's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tolerance {
    Exact,
    /// The last operation is a libdevice function with this many ulps of documented
    /// error (plus one for the host's libm).
    Ulps(u32),
}

/// Transcendentals with libdevice's documented maximum ulp error (CUDA C Programming
/// Guide, "Mathematical Functions", single / double precision), used only as a
/// program's last operation.
pub(super) const APPROX: &[(&str, u32, u32, u32)] = &[
    // (method, operands, f32 ulps, f64 ulps)
    ("sin", 1, 2, 2),
    ("cos", 1, 2, 2),
    ("tan", 1, 4, 2),
    ("asin", 1, 2, 2),
    ("acos", 1, 2, 2),
    ("atan", 1, 2, 2),
    ("atan2", 2, 3, 2),
    ("sinh", 1, 3, 2),
    ("cosh", 1, 2, 1),
    ("tanh", 1, 2, 1),
    ("exp", 1, 2, 1),
    ("exp2", 1, 2, 1),
    ("exp_m1", 1, 1, 1),
    ("ln", 1, 1, 1),
    ("log2", 1, 1, 1),
    ("log10", 1, 2, 1),
    ("ln_1p", 1, 1, 1),
    ("powf", 2, 4, 2),
    ("cbrt", 1, 1, 1),
    ("hypot", 2, 3, 2),
    ("powi", 2, 8, 8),
];

#[derive(Clone)]
pub(super) struct Var {
    pub(super) name: String,
    pub(super) ty: Ty,
    pub(super) mutable: bool,
    /// Loop counters and range bounds the body must not change (termination).
    pub(super) frozen: bool,
    /// A parameter of the program's main function: its bits are a kernel input, so
    /// its NaN sign is the same on both sides.
    pub(super) param: bool,
}

#[derive(Clone)]
pub(super) struct Helper {
    pub(super) name: String,
    pub(super) params: Vec<Ty>,
    pub(super) takes_tab: bool,
    pub(super) ret: Ty,
}

/// A generated expression: its text and whether rustc knows its type without context
/// (an unsuffixed literal does not; `(x + 1)` with `x: u8` does).
pub(super) struct Expr {
    pub(super) text: String,
    pub(super) concrete: bool,
}

impl Expr {
    pub(super) fn new(text: String, concrete: bool) -> Expr {
        Expr { text, concrete }
    }
}

pub(super) struct FnGen<'r> {
    pub(super) rng: &'r mut Rng,
    pub(super) scopes: Vec<Vec<Var>>,
    pub(super) helpers: Vec<Helper>,
    pub(super) has_tab: bool,
    pub(super) next_id: u32,
    /// Enclosing loop labels (None: unlabelled `for`/`while`/`loop`).
    pub(super) loops: Vec<Option<String>>,
    pub(super) ret: Ty,
    pub(super) out: String,
    pub(super) indent: usize,
    /// Statements left for this function (keeps programs small).
    pub(super) budget: u32,
}

pub(super) const MAX_DEPTH: u32 = 3;

impl<'r> FnGen<'r> {
    pub(super) fn new(rng: &'r mut Rng, helpers: Vec<Helper>, has_tab: bool, ret: Ty) -> FnGen<'r> {
        FnGen {
            rng,
            scopes: vec![Vec::new()],
            helpers,
            has_tab,
            next_id: 0,
            loops: Vec::new(),
            ret,
            out: String::new(),
            indent: 1,
            budget: 0,
        }
    }

    pub(super) fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    pub(super) fn declare(&mut self, name: &str, ty: Ty, mutable: bool, frozen: bool, param: bool) {
        self.scopes.last_mut().unwrap().push(Var {
            name: name.to_string(),
            ty,
            mutable,
            frozen,
            param,
        });
    }

    /// Variables in scope (innermost shadowing outer ones of the same name).
    pub(super) fn visible(&self) -> Vec<Var> {
        let mut seen: Vec<Var> = Vec::new();
        for scope in self.scopes.iter().rev() {
            for v in scope.iter().rev() {
                if !seen.iter().any(|s| s.name == v.name) {
                    seen.push(v.clone());
                }
            }
        }
        seen
    }

    pub(super) fn vars_of(&self, ty: Ty) -> Vec<Var> {
        self.visible().into_iter().filter(|v| v.ty == ty).collect()
    }

    pub(super) fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    // ---- literals -------------------------------------------------------------

    pub(super) fn int_literal(&mut self, ty: Ty, suffixed: bool) -> Expr {
        let (min, max) = ty.range();
        let v: i128 = match self.rng.below(8) {
            0 => 0,
            1 => 1,
            2 => max,
            3 => min,
            4 => self.rng.below(10) as i128,
            5 => max - self.rng.below(3) as i128,
            6 => min + self.rng.below(3) as i128,
            _ => {
                let span = (max - min) as u128 + 1;
                min + ((self.rng.next() as u128 | (self.rng.next() as u128) << 64) % span) as i128
            }
        };
        let magnitude = v.unsigned_abs();
        let digits = match self.rng.below(6) {
            0 => format!("{magnitude:#x}"),
            1 if magnitude < 64 => format!("{magnitude:#b}"),
            2 if magnitude < 512 => format!("{magnitude:#o}"),
            3 if magnitude >= 10_000 => {
                // Underscores every three digits.
                let s = magnitude.to_string();
                let mut out = String::new();
                for (i, c) in s.chars().enumerate() {
                    if i > 0 && (s.len() - i) % 3 == 0 {
                        out.push('_');
                    }
                    out.push(c);
                }
                out
            }
            _ => magnitude.to_string(),
        };
        let suffix = if suffixed { ty.name() } else { "" };
        let text = if v < 0 {
            format!("(-{digits}{suffix})")
        } else if digits.starts_with("0x") && suffixed {
            // `0xffu8`: fine; keep as is.
            format!("{digits}{suffix}")
        } else {
            format!("{digits}{suffix}")
        };
        Expr::new(text, suffixed)
    }

    pub(super) fn float_literal(&mut self, ty: Ty, suffixed: bool) -> Expr {
        let limit = if ty == Ty::F32 { 3.0e38 } else { 1.0e308 };
        let mut m = *self.rng.pick(FLOAT_MAGNITUDES);
        if m > limit || (ty == Ty::F32 && m != 0.0 && m < 1e-38) {
            m = 1.0;
        }
        if self.rng.chance(20) {
            m = (self.rng.next() % 2000) as f64 / 16.0;
        }
        let digits = match self.rng.below(5) {
            // Many digits: rounding straight to f32 and via f64 can differ.
            0 if ty == Ty::F32 && m >= 1e-3 && m < 1e9 => {
                let x = m as f32;
                let next = f32::from_bits(x.to_bits() + 1);
                let mid = (x as f64 + next as f64) / 2.0;
                let lean = if self.rng.chance(50) { 1e-12 } else { -1e-12 };
                format!("{:.30}", mid + lean * mid)
            }
            1 if m.fract() == 0.0 && m < 1e6 => format!("{}", m as u64),
            2 if m >= 1000.0 && m < 1e6 && m.fract() == 0.0 => {
                format!("{}_{:03}.0", m as u64 / 1000, m as u64 % 1000)
            }
            _ => {
                let s = format!("{m:?}");
                if s.contains('.') || s.contains('e') {
                    s
                } else {
                    format!("{s}.0")
                }
            }
        };
        let is_int_form = !digits.contains('.') && !digits.contains('e');
        let suffixed = suffixed || is_int_form; // `3` alone would be an integer
        let text = if suffixed {
            format!("{digits}{}", ty.name())
        } else {
            digits
        };
        let text = if self.rng.chance(25) {
            format!("(-{text})")
        } else {
            text
        };
        Expr::new(text, suffixed)
    }

    pub(super) fn literal(&mut self, ty: Ty, ctx_known: bool) -> Expr {
        let suffixed = !ctx_known || self.rng.chance(50);
        match ty {
            Ty::Bool => Expr::new(self.rng.pick(&["true", "false"]).to_string(), true),
            t if t.is_float() => self.float_literal(t, suffixed),
            t => self.int_literal(t, suffixed),
        }
    }

    pub(super) fn constant(&mut self, ty: Ty) -> Expr {
        let n = ty.name();
        let text = match ty {
            Ty::Bool => return self.literal(ty, false),
            Ty::F32 | Ty::F64 => {
                let c = *self.rng.pick(&[
                    "MAX",
                    "MIN",
                    "MIN_POSITIVE",
                    "EPSILON",
                    "INFINITY",
                    "NEG_INFINITY",
                    "NAN",
                    "consts::PI",
                    "consts::E",
                    "consts::TAU",
                    "consts::FRAC_1_SQRT_2",
                    "consts::LN_2",
                    "consts::LOG10_E",
                    "consts::FRAC_PI_3",
                ]);
                if c.starts_with("consts") {
                    format!("std::{n}::{c}")
                } else {
                    format!("{n}::{c}")
                }
            }
            Ty::U32 if self.rng.chance(20) => format!("{}::BITS", self.rng.pick(&INTEGERS).name()),
            _ => format!("{n}::{}", self.rng.pick(&["MAX", "MIN"])),
        };
        Expr::new(text, true)
    }

    pub(super) fn leaf(&mut self, ty: Ty, ctx_known: bool) -> Expr {
        let vars = self.vars_of(ty);
        // Any other variable this type can be cast from (bool only to integers).
        let castable: Vec<Var> = self
            .visible()
            .into_iter()
            .filter(|v| v.ty != Ty::Bool || ty.is_int())
            .collect();
        match self.rng.below(10) {
            0..=4 if !vars.is_empty() => {
                let v = self.rng.pick(&vars).name.clone();
                Expr::new(v, true)
            }
            0..=3 if ty != Ty::Bool && !castable.is_empty() => {
                let v = self.rng.pick(&castable).name.clone();
                Expr::new(format!("({v} as {})", ty.name()), true)
            }
            5 => self.constant(ty),
            _ => self.literal(ty, ctx_known),
        }
    }

    // ---- expressions ----------------------------------------------------------

    /// An expression of type `ty`. `ctx_known`: rustc infers its type from the
    /// surrounding code, so unsuffixed literals may appear at its top.
    pub(super) fn expr(&mut self, ty: Ty, depth: u32, ctx_known: bool) -> Expr {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(ty, ctx_known);
        }
        let d = depth - 1;
        match self.rng.below(20) {
            0 | 1 => return self.cast_to(ty, d),
            2 => {
                if let Some(e) = self.call_helper(ty, d) {
                    return e;
                }
            }
            3 => {
                let c = self.expr(Ty::Bool, d, true).text;
                let a = self.expr(ty, d, ctx_known);
                let b = self.expr(ty, d, ctx_known || a.concrete);
                return Expr::new(
                    format!("(if {c} {{ {} }} else {{ {} }})", a.text, b.text),
                    a.concrete || b.concrete,
                );
            }
            4 => {
                // A block with its own binding.
                let t = self.fresh("b");
                let init = self.expr(ty, d, true).text;
                self.scopes.push(Vec::new());
                self.declare(&t, ty, false, false, false);
                let tail = self.expr(ty, d, ctx_known);
                self.scopes.pop();
                let n = ty.name();
                return Expr::new(
                    format!("{{ let {t}: {n} = {init}; {} }}", tail.text),
                    tail.concrete,
                );
            }
            5 if ty == Ty::I64 && self.has_tab => {
                let idx = self.expr(Ty::Usize, d, true).text;
                let text = if self.rng.chance(70) {
                    format!("tab[({idx}) % 10]") // len 8: indices 8 and 9 panic
                } else {
                    format!("tab[{idx}]")
                };
                return Expr::new(text, true);
            }
            _ => {}
        }
        match ty {
            Ty::Bool => self.bool_expr(d),
            t if t.is_float() => self.float_expr(t, d, ctx_known),
            t => self.int_expr(t, d, ctx_known),
        }
    }

    /// `(e as ty)` from a random other type (`bool` only to integers).
    pub(super) fn cast_to(&mut self, ty: Ty, d: u32) -> Expr {
        if ty == Ty::Bool {
            return self.bool_expr(d);
        }
        let from = loop {
            let f = *self.rng.pick(&ALL);
            if !(f == Ty::Bool && ty.is_float()) {
                break f;
            }
        };
        let e = self.expr(from, d, false);
        Expr::new(format!("({} as {})", e.text, ty.name()), true)
    }

    pub(super) fn call_helper(&mut self, ty: Ty, d: u32) -> Option<Expr> {
        let candidates: Vec<Helper> = self
            .helpers
            .iter()
            .filter(|h| h.ret == ty && (self.has_tab || !h.takes_tab))
            .cloned()
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let h = self.rng.pick(&candidates).clone();
        let mut args = Vec::new();
        if h.takes_tab {
            args.push("tab".to_string());
        }
        for p in &h.params {
            // Argument types come from the callee's signature (issue 7's inference).
            args.push(self.expr(*p, d, true).text);
        }
        Some(Expr::new(format!("{}({})", h.name, args.join(", ")), true))
    }

    pub(super) fn int_expr(&mut self, ty: Ty, d: u32, ctx_known: bool) -> Expr {
        let n = ty.name();
        match self.rng.below(16) {
            0..=5 => {
                let op = *self
                    .rng
                    .pick(&["+", "-", "*", "&", "|", "^", "+", "-", "*"]);
                let a = self.expr(ty, d, ctx_known);
                let b = self.expr(ty, d, ctx_known || a.concrete);
                Expr::new(
                    format!("({} {op} {})", a.text, b.text),
                    a.concrete || b.concrete,
                )
            }
            6 | 7 => {
                let op = *self.rng.pick(&["/", "%"]);
                let a = self.expr(ty, d, ctx_known);
                let b = self.expr(ty, d, ctx_known || a.concrete);
                let concrete = a.concrete || b.concrete;
                let b = if self.rng.chance(75) {
                    // Mostly no division by zero, so the code after it runs too.
                    format!("({} | 1)", b.text)
                } else {
                    b.text
                };
                Expr::new(format!("({} {op} {b})", a.text), concrete)
            }
            8 => {
                let op = *self.rng.pick(&["<<", ">>"]);
                let a = self.expr(ty, d, false);
                let amount_ty = *self.rng.pick(&INTEGERS);
                let b = self.expr(amount_ty, d, false);
                Expr::new(format!("({} {op} {})", a.text, b.text), true)
            }
            9 => {
                let a = self.expr(ty, d, ctx_known);
                // `-(-0x80i8)`: rustc's literal lint sees the outer `-` only and
                // rejects the literal, so no `-` right before a negative literal.
                if ty.is_signed() && !a.text.starts_with("(-") && self.rng.chance(50) {
                    Expr::new(format!("(-{})", a.text), a.concrete)
                } else {
                    Expr::new(format!("(!{})", a.text), a.concrete)
                }
            }
            10 if ty.is_signed() => {
                let a = self.expr(ty, d, false);
                Expr::new(format!("{}.abs()", a.text), true)
            }
            11 | 12 => {
                let m =
                    *self
                        .rng
                        .pick(&["min", "max", "wrapping_add", "wrapping_sub", "wrapping_mul"]);
                let a = self.expr(ty, d, false);
                let b = self.expr(ty, d, true);
                let text = if m.starts_with('w') || self.rng.chance(70) {
                    format!("{}.{m}({})", a.text, b.text)
                } else {
                    format!("{n}::{m}({}, {})", a.text, b.text)
                };
                Expr::new(text, true)
            }
            13 => self.int_method(ty, d),
            _ => self.leaf(ty, ctx_known),
        }
    }

    /// The integer methods of the table besides `abs`/`min`/`max`/`wrapping_*` (issue
    /// 22: the generator emitted only those, so narrow results of the others never met
    /// a comparison or a widening cast, where a GPU's register width shows).
    fn int_method(&mut self, ty: Ty, d: u32) -> Expr {
        let n = ty.name();
        let a = self.expr(ty, d, false);
        let text = match self.rng.below(7) {
            0 => {
                let m = *self
                    .rng
                    .pick(&["count_ones", "leading_zeros", "trailing_zeros"]);
                format!("({}.{m}() as {n})", a.text)
            }
            1 => {
                let m = *self
                    .rng
                    .pick(&["rotate_left", "rotate_right", "wrapping_pow", "pow"]);
                let s = self.expr(Ty::U32, d, true);
                // `pow` wraps in release builds; small exponents keep it interesting.
                let s = if m == "pow" {
                    format!("({} % 9)", s.text)
                } else {
                    s.text
                };
                format!("{}.{m}({s})", a.text)
            }
            2 => {
                let m = *self.rng.pick(&["swap_bytes", "reverse_bits"]);
                format!("{}.{m}()", a.text)
            }
            3 => {
                let m = *self.rng.pick(&["saturating_add", "saturating_sub"]);
                let b = self.expr(ty, d, true);
                format!("{}.{m}({})", a.text, b.text)
            }
            4 => {
                // Bounds in order, so that `clamp` does not panic.
                let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
                let b = self.expr(ty, d, true);
                let c = self.expr(ty, d, true);
                format!(
                    "{{ let {lo}: {n} = {}; let {hi}: {n} = {}; {}.clamp({lo}.min({hi}), {lo}.max({hi})) }}",
                    b.text, c.text, a.text
                )
            }
            5 if matches!(ty, Ty::I32 | Ty::U32 | Ty::I64 | Ty::U64) => {
                let b = self.expr(ty, d, true);
                format!("mul_hi({}, {})", a.text, b.text)
            }
            _ if ty.is_signed() => format!("{}.abs()", a.text),
            _ => format!("{}.saturating_add(1)", a.text),
        };
        Expr::new(text, true)
    }

    /// A float operand whose NaN sign is defined: a parameter or a literal.
    pub(super) fn sign_source(&mut self, ty: Ty) -> String {
        let params: Vec<Var> = self.vars_of(ty).into_iter().filter(|v| v.param).collect();
        if !params.is_empty() && self.rng.chance(60) {
            self.rng.pick(&params).name.clone()
        } else {
            self.float_literal(ty, true).text
        }
    }

    pub(super) fn float_expr(&mut self, ty: Ty, d: u32, ctx_known: bool) -> Expr {
        let n = ty.name();
        match self.rng.below(16) {
            0..=5 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "%", "+", "*"]);
                let a = self.expr(ty, d, ctx_known);
                let b = self.expr(ty, d, ctx_known || a.concrete);
                let text = if op == "+" && self.rng.chance(30) {
                    // `a * b + c`: two roundings in Rust, never a fused multiply-add.
                    let c = self.expr(ty, d, true);
                    format!("({} * {} + {})", a.text, b.text, c.text)
                } else {
                    format!("({} {op} {})", a.text, b.text)
                };
                Expr::new(text, a.concrete || b.concrete)
            }
            6 => {
                let a = self.expr(ty, d, ctx_known);
                Expr::new(format!("(-{})", a.text), a.concrete)
            }
            7..=10 => {
                let m = *self.rng.pick(&[
                    "sqrt",
                    "floor",
                    "ceil",
                    "round",
                    "trunc",
                    "abs",
                    "signum",
                    "recip",
                    "to_degrees",
                    "to_radians",
                    "fract",
                ]);
                let a = self.expr(ty, d, false);
                let text = if self.rng.chance(25) {
                    format!("{n}::{m}({})", a.text)
                } else {
                    format!("{}.{m}()", a.text)
                };
                Expr::new(text, true)
            }
            11 => {
                let a = self.expr(ty, d, false);
                let b = self.expr(ty, d, true);
                let c = self.expr(ty, d, true);
                Expr::new(format!("{}.mul_add({}, {})", a.text, b.text, c.text), true)
            }
            12 => {
                let a = self.expr(ty, d, false);
                let s = self.sign_source(ty);
                Expr::new(format!("{}.copysign({s})", a.text), true)
            }
            14 => {
                // `clamp` with literal bounds (a NaN `x` stays NaN), and a bit flip through
                // `to_bits`/`from_bits` (only NaN-ness of a NaN result is compared).
                let a = self.expr(ty, d, false);
                let text = if self.rng.chance(50) {
                    format!("{}.clamp(-1.5, 2.5)", a.text)
                } else {
                    format!("{n}::from_bits({}.to_bits() ^ 1)", a.text)
                };
                Expr::new(text, true)
            }
            13 => {
                // `min`/`max` of +0.0 and -0.0 may return either; `+ 0.0` makes both +0.0.
                let m = *self.rng.pick(&["min", "max"]);
                let a = self.expr(ty, d, false);
                let b = self.expr(ty, d, true);
                Expr::new(format!("({}.{m}({}) + 0.0)", a.text, b.text), true)
            }
            _ => self.leaf(ty, ctx_known),
        }
    }

    pub(super) fn bool_expr(&mut self, d: u32) -> Expr {
        match self.rng.below(10) {
            0..=4 => {
                let t = *self.rng.pick(&ALL);
                let ops: &[&str] = if t == Ty::Bool {
                    &["==", "!="]
                } else {
                    &["==", "!=", "<", "<=", ">", ">="]
                };
                let op = *self.rng.pick(ops);
                let a = self.expr(t, d, false);
                let b = self.expr(t, d, true);
                Expr::new(format!("({} {op} {})", a.text, b.text), true)
            }
            5 => {
                let a = self.expr(Ty::Bool, d, true);
                Expr::new(format!("(!{})", a.text), true)
            }
            6..=8 => {
                let op = *self.rng.pick(&["&&", "||", "^", "&", "|"]);
                let a = self.expr(Ty::Bool, d, true);
                let b = self.expr(Ty::Bool, d, true);
                Expr::new(format!("({} {op} {})", a.text, b.text), true)
            }
            9 if self.rng.chance(50) => {
                let t = *self.rng.pick(&[Ty::F32, Ty::F64]);
                let m = *self.rng.pick(&["is_nan", "is_finite"]);
                let a = self.expr(t, d, false);
                Expr::new(format!("{}.{m}()", a.text), true)
            }
            _ => self.leaf(Ty::Bool, true),
        }
    }
}
