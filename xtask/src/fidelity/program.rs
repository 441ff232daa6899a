//! Whole programs: helpers, the main device function, its kernel and the host glue,
//! and the generated module that holds them all.

use super::gen::{FnGen, Helper, Rng, Tolerance, APPROX, MAX_DEPTH};
use super::types::{Ty, ALL};
use std::fmt::Write as _;

/// One generated program.
pub struct Program {
    pub index: usize,
    pub tolerance: Tolerance,
    /// Device functions and the kernel (the text the frontend and rustc both see).
    pub device_code: String,
    /// The host glue `run_<N>`.
    pub glue: String,
}

fn params_text(params: &[(String, Ty)], tab: bool) -> String {
    let mut parts = Vec::new();
    if tab {
        parts.push("tab: &[i64]".to_string());
    }
    parts.extend(params.iter().map(|(n, t)| format!("{n}: {}", t.name())));
    parts.join(", ")
}

fn random_ty(rng: &mut Rng) -> Ty {
    *rng.pick(&ALL)
}

/// Program `index` of the stream `seed`.
pub fn program(seed: u64, index: usize) -> Program {
    let mut rng = Rng::new(seed, index as u64);
    let mut helpers: Vec<Helper> = Vec::new();
    let mut code = String::new();
    let helper_count = rng.below(4);
    for k in 0..helper_count {
        let name = format!("prog{index}_{k}");
        let arity = 1 + rng.below(3);
        let params: Vec<(String, Ty)> = (0..arity)
            .map(|p| (format!("h{p}"), random_ty(&mut rng)))
            .collect();
        let ret = random_ty(&mut rng);
        let takes_tab = rng.chance(30);
        let mut g = FnGen::new(&mut rng, helpers.clone(), takes_tab, ret);
        for (n, t) in &params {
            // Not `param`: a helper's arguments may be computed NaNs (unknown sign).
            g.declare(n, *t, false, false, false);
        }
        g.budget = 4;
        let statements = g.rng.below(4) as u32;
        g.block_at_top(statements);
        let tail = g.expr(ret, MAX_DEPTH, true).text;
        let body = std::mem::take(&mut g.out);
        let _ = writeln!(
            code,
            "#[device]\npub fn {name}({}) -> {} {{\n{body}    {tail}\n}}\n",
            params_text(&params, takes_tab),
            ret.name()
        );
        helpers.push(Helper {
            name,
            params: params.iter().map(|(_, t)| *t).collect(),
            takes_tab,
            ret,
        });
    }

    let approx = rng.chance(20);
    let ret = if approx {
        *rng.pick(&[Ty::F32, Ty::F64])
    } else {
        random_ty(&mut rng)
    };
    let arity = 1 + rng.below(4);
    let params: Vec<(String, Ty)> = (0..arity)
        .map(|p| (format!("a{p}"), random_ty(&mut rng)))
        .collect();
    let mut g = FnGen::new(&mut rng, helpers, true, ret);
    for (n, t) in &params {
        g.declare(n, *t, false, false, true);
    }
    g.budget = 14;
    let statements = 2 + g.rng.below(8) as u32;
    g.block_at_top(statements);
    let (tail, tolerance) = if approx {
        let &(method, arity, ulps32, ulps64) = g.rng.pick(APPROX);
        let x = g.fresh("x");
        let init = g.expr(ret, MAX_DEPTH, true).text;
        g.line(&format!("let {x}: {} = {init};", ret.name()));
        let tail = match (method, arity) {
            ("powi", _) => format!("{x}.powi({})", g.rng.below(10) as i32 - 3),
            (_, 2) => {
                let y = g.expr(ret, 2, true).text;
                format!("{x}.{method}({y})")
            }
            _ => format!("{x}.{method}()"),
        };
        let ulps = if ret == Ty::F32 { ulps32 } else { ulps64 };
        (tail, Tolerance::Ulps(ulps + 1))
    } else {
        (g.expr(ret, MAX_DEPTH, true).text, Tolerance::Exact)
    };
    let body = std::mem::take(&mut g.out);
    let f = format!("prog{index}");
    let _ = writeln!(
        code,
        "#[device]\npub fn {f}({}) -> {} {{\n{body}    {tail}\n}}\n",
        params_text(&params, true),
        ret.name()
    );
    // The kernel: one input tuple per thread; `done` tells threads that returned from
    // those that panicked.
    let slices: Vec<String> = params
        .iter()
        .map(|(n, t)| format!("{n}: &[{}]", t.name()))
        .collect();
    let args: Vec<String> = params.iter().map(|(n, _)| format!("{n}[i]")).collect();
    let _ = writeln!(
        code,
        "#[kernel]\npub fn kern{index}(tab: &[i64], {}, out: &mut [{}], done: &mut [u32]) {{\n    \
         let i = grid(1);\n    if i < out.len() {{\n        out[i] = {f}(tab, {});\n        \
         done[i] = 1;\n    }}\n}}\n",
        slices.join(", "),
        ret.name(),
        args.join(", ")
    );

    let inputs: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(p, (n, t))| format!("    let {n}: Vec<{}> = h.inputs({p});\n", t.name()))
        .collect();
    let refs: Vec<String> = params.iter().map(|(n, _)| format!("&{n}")).collect();
    let shows: Vec<String> = params.iter().map(|(n, _)| format!("{n}[j]")).collect();
    let fmt = vec!["{:?}"; params.len()].join(", ");
    let tol = match tolerance {
        Tolerance::Exact => "Tolerance::Exact".to_string(),
        Tolerance::Ulps(u) => format!("Tolerance::Ulps({u})"),
    };
    let glue = format!(
        "pub fn run_{index}(h: &Harness) -> Outcome {{\n{}    \
         let mut out = vec![<{r} as Value>::POISON; h.n];\n    \
         let mut done = vec![0u32; h.n];\n    \
         let launched = launch!(kern{index}[h.n.div_ceil(h.block), h.block](&h.tab, {}, &mut out, &mut done));\n    \
         h.check(\"{f}\", {tol}, launched, &out, &done, |j| {f}(&h.tab, {}), |j| format!(\"({fmt})\", {}))\n}}\n",
        inputs.concat(),
        refs.join(", "),
        shows.join(", "),
        shows.join(", "),
        r = ret.name(),
    );
    Program {
        index,
        tolerance,
        device_code: code,
        glue,
    }
}

impl FnGen<'_> {
    /// The function body's top-level statements (indent 1).
    fn block_at_top(&mut self, statements: u32) {
        for _ in 0..statements {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.statement();
        }
    }
}

/// The whole generated module: `count` programs of stream `seed`, and the table of
/// runners the harness iterates.
pub fn module(seed: u64, count: usize) -> String {
    let header = format!(
        "// @generated by `cargo xtask gen-fidelity --seed {seed} --count {count}`; do not edit.\n\
         // {count} random programs of the kernel subset (issue 7): each `f<N>` runs on the GPU as\n\
         // kernel `k<N>` and on the host as rustc compiled it; `run_<N>` compares the two.\n\n"
    );
    module_of(seed, 0..count, &header)
}

/// Programs `range` of stream `seed` as a module, after the comment `header`. A range
/// of the stream is what the whole stream holds at those indices, so a long run can be
/// compiled in pieces (rustc's memory grows with the number of kernels in one crate).
pub fn module_of(seed: u64, range: std::ops::Range<usize>, header: &str) -> String {
    let count = range.len();
    let mut out = format!(
        "{header}\
         #![allow(warnings, clippy::all, arithmetic_overflow, unconditional_panic)]\n\n\
         use super::{{Harness, Outcome, Tolerance, Value}};\n\
         use cudajit::prelude::*;\n\n\
         pub const SEED: u64 = {seed};\n\n"
    );
    let programs: Vec<Program> = range.map(|i| program(seed, i)).collect();
    let approximate = programs
        .iter()
        .filter(|p| p.tolerance != Tolerance::Exact)
        .count();
    let _ = writeln!(
        out,
        "// {} exact programs, {approximate} ending in a libdevice function.\n",
        count - approximate
    );
    for p in &programs {
        out.push_str(&p.device_code);
        out.push_str(&p.glue);
        out.push('\n');
    }
    out.push_str("/// Every program: (name, runner).\npub const PROGRAMS: &[(&str, fn(&Harness) -> Outcome)] = &[\n");
    for p in &programs {
        let _ = writeln!(out, "    (\"prog{0}\", run_{0}),", p.index);
    }
    out.push_str("];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed programs are the generator's output: a change to the generator
    /// regenerates them (and CI and the GPU bundle test what it generates).
    #[test]
    fn committed_programs_are_the_generators_output() {
        let path = crate::root().join("tests/gpu/fidelity/programs.rs");
        let committed = std::fs::read_to_string(&path).unwrap();
        assert!(
            committed == module(7, 1000),
            "{} is stale: run `cargo xtask gen-fidelity --seed 7 --count 1000 --out \
             tests/gpu/fidelity/programs.rs`",
            path.display()
        );
    }

    #[test]
    fn programs_are_reproducible_and_independent_of_the_count() {
        assert_eq!(module(7, 5), module(7, 5));
        let (a, b) = (program(7, 3), program(7, 3));
        assert_eq!(a.device_code, b.device_code);
        assert!(module(7, 10).contains(&a.device_code));
        assert_ne!(program(7, 3).device_code, program(8, 3).device_code);
    }

    #[test]
    fn both_tolerance_classes_and_every_type_appear() {
        let programs: Vec<Program> = (0..200).map(|i| program(7, i)).collect();
        assert!(programs.iter().any(|p| p.tolerance == Tolerance::Exact));
        assert!(programs
            .iter()
            .any(|p| matches!(p.tolerance, Tolerance::Ulps(_))));
        let text: String = programs.iter().map(|p| p.device_code.as_str()).collect();
        for ty in ALL {
            assert!(text.contains(&format!(": {}", ty.name())), "{}", ty.name());
        }
        for needle in [
            ".step_by(",
            ".rev()",
            "::MAX - ",
            "break '",
            "continue '",
            "loop {",
            "while ",
            " % ",
            " << ",
            ".mul_add(",
            ".copysign(",
            "tab[",
        ] {
            assert!(text.contains(needle), "{needle}");
        }
    }
}
