//! The fuzz test's optimiser mode: kernels whose indices the optimiser (`kernel-device`'s
//! `opt`) reasons about (local arrays indexed by `thread_idx()`, `lane_id()` and loop
//! variables through `%`, `/`, `&`, `+` and guarded `- 1`; grid-bounded indices into the
//! parameters; loops up to a slice's length; guarded prefetches into small arrays), with
//! constants drawn so that some indices are provably in bounds and some are not (and
//! then panic for some threads). The simulator runs the optimised module, so an index
//! wrongly proven in bounds shows up as a fault or a wrong value against rustc's build
//! of the same body, which runs as a host function with the thread's registers passed
//! in.

use std::fmt::Write as _;

use crate::fidelity::gen::{Rng, Tolerance};
use crate::fidelity::program::Program;

/// Array lengths the bodies use.
const LENGTHS: [u64; 5] = [4, 8, 16, 32, 34];

/// Program `index` of opt stream `seed` (a stream of its own: it never repeats a plain
/// program's text).
pub fn program(seed: u64, index: usize) -> Program {
    let mut rng = Rng::new(seed ^ 0x6F70_745F_6D6F_6465, index as u64);
    let body = Body::generate(&mut rng);
    let mut device_code = String::new();
    let _ = writeln!(
        device_code,
        "#[kernel]\npub fn kern{index}(tab: &[i64], a0: &[u32], out: &mut [u32], done: &mut [u32]) {{\n    \
         let i = grid(1);\n    if i < out.len() {{\n        let tid = thread_idx().x;\n        \
         let lane = lane_id();\n        let x = a0[i];\n{}        out[i] = acc;\n        \
         done[i] = 1;\n    }}\n}}\n",
        body.indented(8)
    );
    // rustc's build of the same body: the registers the kernel reads become arguments.
    let _ = writeln!(
        device_code,
        "pub fn opt_ref{index}(a0: &[u32], i: usize, tid: u32, lane: u32) -> u32 {{\n    \
         let x = a0[i];\n{}    acc\n}}\n",
        body.indented(4)
    );
    let glue = format!(
        "pub fn run_{index}(h: &Harness) -> Outcome {{\n    \
         let a0: Vec<u32> = h.inputs(0);\n    \
         let mut out = vec![<u32 as Value>::POISON; h.n];\n    \
         let mut done = vec![0u32; h.n];\n    \
         let launched = launch!(kern{index}[h.n.div_ceil(h.block), h.block](&h.tab, &a0, &mut out, &mut done));\n    \
         h.check(\"opt{index}\", Tolerance::Exact, launched, &out, &done, \
         |j| opt_ref{index}(&a0, j, (j % h.block) as u32, (j % h.block % 32) as u32), \
         |j| format!(\"({{:?}})\", a0[j]))\n}}\n"
    );
    Program {
        index,
        tolerance: Tolerance::Exact,
        device_code,
        glue,
    }
}

/// The statements both the kernel and its reference run: `acc` (u32) at the end.
struct Body {
    lines: Vec<String>,
}

impl Body {
    fn generate(rng: &mut Rng) -> Body {
        let mut lines = vec!["let mut acc: u32 = x;".to_string()];
        let tables = 1 + rng.below(2);
        let mut lens = Vec::new();
        for t in 0..tables {
            let len = *rng.pick(&LENGTHS);
            let items: Vec<String> = (0..len)
                .map(|_| format!("{}", rng.next() % 100_000))
                .collect();
            lines.push(format!("let t{t}: [u32; {len}] = [{}];", items.join(", ")));
            lens.push(len);
        }
        for _ in 0..3 + rng.below(5) {
            let t = rng.below(tables);
            let len = lens[t];
            // Around the length: proven below it, or not (and then some threads panic).
            let near = |rng: &mut Rng| (len as i64 + rng.below(5) as i64 - 3).max(1) as u64;
            let op = *rng.pick(&["+", "^", "*"]);
            let read = match rng.below(9) {
                0 => format!("t{t}[(tid % {}) as usize]", near(rng)),
                1 => format!("t{t}[(lane % {}) as usize]", near(rng)),
                2 => format!("t{t}[(tid / {}) as usize]", rng.pick(&[8, 16, 32, 64, 128])),
                3 => {
                    let mask = *rng.pick(&[1, 3, 7, 15, 31]);
                    format!("t{t}[((tid & {mask}) as usize) + {}]", rng.below(4))
                }
                4 => format!("t{t}[(x % {}) as usize]", near(rng)),
                5 => {
                    // A loop over a literal range, stepped: its last element plus the
                    // offset is below the length, or not.
                    let (end, step, offset) = (
                        1 + rng.below(len as usize + 2),
                        1 + rng.below(4),
                        rng.below(3),
                    );
                    lines.push(format!(
                        "for r in (0..{end}).step_by({step}) {{ acc = acc {op} t{t}[r + {offset}]; }}"
                    ));
                    continue;
                }
                6 => {
                    // A read under a test that bounds the local from below.
                    let w = format!("w{}", lines.len());
                    let d = rng.pick(&[4, 8, 16, 32]);
                    lines.push(format!("let {w} = (tid / {d}) as usize;"));
                    lines.push(format!("if {w} > 0 {{ acc = acc {op} t{t}[{w} - 1]; }}"));
                    continue;
                }
                7 => {
                    // A guarded prefetch into a small array, then a read of it.
                    let p = format!("p{}", lines.len());
                    let width = *rng.pick(&[2usize, 4]);
                    let k0 = format!("k{}", lines.len());
                    lines.push(format!("let mut {p} = [0u32; {width}];"));
                    lines.push(format!(
                        "let {k0} = (x % {}) as usize;",
                        400 + rng.below(200)
                    ));
                    lines.push(format!(
                        "if {k0} + {width} < a0.len() {{ for j in 0..{width} {{ {p}[j] = a0[{k0} + j]; }} }}"
                    ));
                    lines.push(format!("acc = acc {op} {p}[(x % {width}) as usize];"));
                    continue;
                }
                _ => {
                    // Grid-bounded and loop-bounded indices into the parameter.
                    match rng.below(3) {
                        0 => format!("a0[i + {}]", rng.below(2)),
                        1 => format!("a0[i / {}]", 1 + rng.below(3)),
                        _ => {
                            lines.push(format!(
                                "for k in (tid as usize..a0.len()).step_by({}) {{ acc = acc {op} a0[k]; }}",
                                *rng.pick(&[64, 96, 128])
                            ));
                            continue;
                        }
                    }
                }
            };
            lines.push(format!("acc = acc {op} {read};"));
        }
        Body { lines }
    }

    fn indented(&self, spaces: usize) -> String {
        let pad = " ".repeat(spaces);
        self.lines.iter().map(|l| format!("{pad}{l}\n")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opt_programs_are_reproducible_and_cover_every_pattern() {
        assert_eq!(program(7, 3).device_code, program(7, 3).device_code);
        assert_ne!(program(7, 3).device_code, program(7, 4).device_code);
        let text: String = (0..200).map(|i| program(7, i).device_code).collect();
        for needle in [
            "(tid % ",
            "(lane % ",
            "(tid / ",
            "(tid & ",
            "(x % ",
            ".step_by(",
            "if w",
            " - 1]",
            "[j] = a0[k",
            "a0[i + ",
            "a0[k]",
        ] {
            assert!(text.contains(needle), "{needle}");
        }
    }
}
