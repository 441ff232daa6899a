//! Every form this module prints, in hand-written NVVM IR kernels, through real
//! libnvvm and ptxas for each architecture cudajit builds for (skipped, saying so,
//! without `CUDAJIT_NVVM_PATH` and `CUDAJIT_PTXAS`).

use super::*;
use crate::proc::mma::MMA_COMBOS;

const HEADER: &str = "target datalayout = \"e-p:64:64:64-p3:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"
target triple = \"nvptx64-nvidia-cuda\"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
@tile = internal addrspace(3) global [1024 x i16] undef, align 16
";

/// A kernel per combination: D = mma(A, B, C) on registers loaded from `i*` params.
fn mma_kernel(index: usize, combo: MmaCombo, kernels: &mut Vec<(String, String)>) -> String {
    let regs = |role, elem| registers(combo.shape, role, elem);
    let (ra, rb, rc) = (
        regs(MmaRole::A, combo.input),
        regs(MmaRole::B, combo.input),
        regs(MmaRole::Acc, combo.acc),
    );
    let name = format!("mma_{index}");
    let mut body = String::new();
    let mut load = |param: &str, r: Registers, prefix: &str| -> Vec<String> {
        (0..r.count)
            .map(|i| {
                let v = format!("%{prefix}{i}");
                body += &format!(
                    "  {v}.p = getelementptr {t}, {t}* %{param}, i64 {i}\n  {v} = load {t}, {t}* {v}.p\n",
                    t = r.llvm
                );
                v
            })
            .collect()
    };
    let a = load("pa", ra, "a");
    let b = load("pb", rb, "b");
    let c = load("pc", rc, "c");
    body += &format!("  %d = {}\n", mma_call(combo, &a, &b, &c));
    for i in 0..rc.count {
        body += &format!(
            "  %d{i} = extractvalue {} %d, {i}\n  %d{i}.p = getelementptr {t}, {t}* %pd, i64 {i}\n  store {t} %d{i}, {t}* %d{i}.p\n",
            struct_type(rc.llvm, rc.count),
            t = rc.llvm
        );
    }
    let params = format!(
        "{}* %pa, {}* %pb, {}* %pc, {}* %pd",
        ra.llvm, rb.llvm, rc.llvm, rc.llvm
    );
    let signature = format!(
        "void ({}*, {}*, {}*, {}*)*",
        ra.llvm, rb.llvm, rc.llvm, rc.llvm
    );
    kernels.push((name.clone(), signature));
    format!("define void @{name}({params}) {{\nentry:\n{body}  ret void\n}}\n")
}

/// `ldmatrix` of every count and transposition, and (`with_stmatrix`) `stmatrix` back,
/// each lane naming the 16-byte row at `8 * tid` halves of the shared tile.
fn shared_kernel(with_stmatrix: bool, kernels: &mut Vec<(String, String)>) -> String {
    let mut body = String::from(
        "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %row = mul i32 %tid, 16
  %base64 = ptrtoint [1024 x i16] addrspace(3)* @tile to i64
  %base = trunc i64 %base64 to i32
  %addr = add i32 %base, %row
",
    );
    let mut slot = 0;
    for count in [1usize, 2, 4] {
        for trans in [false, true] {
            let v = format!("%ld{count}{}", if trans { "t" } else { "" });
            body += &format!("  {v} = {}\n", ldmatrix_call(count, trans, "%addr"));
            let mut values = Vec::new();
            for i in 0..count {
                let value = if count == 1 {
                    v.clone()
                } else {
                    body += &format!(
                        "  {v}.{i} = extractvalue {} {v}, {i}\n",
                        struct_type("i32", count)
                    );
                    format!("{v}.{i}")
                };
                body += &format!(
                    "  {value}.p = getelementptr i32, i32* %out, i64 {slot}\n  store i32 {value}, i32* {value}.p\n"
                );
                values.push(value);
                slot += 1;
            }
            if with_stmatrix {
                body += &format!("  {}\n", stmatrix_call(trans, "%addr", &values));
            }
        }
    }
    body += "  %x.p = getelementptr float, float* %f, i64 0\n  %x = load float, float* %x.p\n";
    body += &format!(
        "  %t = {}\n  %tf = bitcast i32 %t to float\n  store float %tf, float* %x.p\n",
        to_tf32_call("%x")
    );
    let name = if with_stmatrix {
        "shared_90"
    } else {
        "shared_80"
    };
    kernels.push((name.into(), "void (i32*, float*)*".into()));
    format!("define void @{name}(i32* %out, float* %f) {{\nentry:\n{body}  ret void\n}}\n")
}

fn module(with_stmatrix: bool) -> String {
    let mut kernels = Vec::new();
    let mut text = String::from(HEADER);
    for (i, combo) in MMA_COMBOS.iter().enumerate() {
        text += &mma_kernel(i, *combo, &mut kernels);
    }
    text += &shared_kernel(with_stmatrix, &mut kernels);
    let mut annotations = Vec::new();
    for (i, (name, signature)) in kernels.iter().enumerate() {
        annotations.push(format!("!{i}"));
        text += &format!("!{i} = !{{{signature} @{name}, !\"kernel\", i32 1}}\n");
    }
    let version = kernels.len();
    text += &format!(
        "!nvvm.annotations = !{{{}}}\n!nvvmir.version = !{{!{version}}}\n!{version} = !{{i32 2, i32 0, i32 3, i32 1}}\n",
        annotations.join(", ")
    );
    text
}

#[test]
fn mma_call_ties_the_accumulator_and_names_the_instruction() {
    let combo = MMA_COMBOS[0];
    let names = |p: &str, n: usize| (0..n).map(|i| format!("%{p}{i}")).collect::<Vec<_>>();
    let call = mma_call(combo, &names("a", 4), &names("b", 2), &names("c", 4));
    assert_eq!(
        call,
        "call { float, float, float, float } asm \"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \
         {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};\", \
         \"=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3\"(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, \
         float %c0, float %c1, float %c2, float %c3)"
    );
    assert!(!call.contains("sideeffect"), "mma must stay schedulable");
    assert!(ldmatrix_call(4, true, "%a").contains("sideeffect"));
}

/// Every combination, `ldmatrix` x1/x2/x4 (.trans) and `cvt.rna.tf32` on compute_80,
/// 90, 100 and 120; `stmatrix` from compute_90 on. Each PTX goes through ptxas for its
/// sm and holds the instructions.
#[test]
fn every_form_compiles_through_libnvvm_and_ptxas_for_each_target() {
    let Some((nvvm, ptxas)) = crate::nvvm::test_toolchain() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for sm in [80u32, 90, 100, 120] {
        let text = module(sm >= STMATRIX_MIN_ARCH);
        let options = crate::nvvm::CompileOptions {
            arch: format!("compute_{sm}"),
            ..Default::default()
        };
        let ptx = nvvm
            .compile(&text, &options)
            .unwrap_or_else(|e| panic!("compute_{sm}: {e}\n--- module ---\n{text}"));
        for combo in MMA_COMBOS {
            assert!(ptx.contains(&combo.instruction()), "sm_{sm}: {combo:?}");
        }
        for form in [
            "m8n8.x1.shared.b16",
            "m8n8.x4.trans.shared.b16",
            "cvt.rna.tf32.f32",
        ] {
            assert!(ptx.contains(form), "sm_{sm}: {form}");
        }
        assert_eq!(ptx.contains("stmatrix"), sm >= STMATRIX_MIN_ARCH);
        let ptx_path = tmp.path().join(format!("m{sm}.ptx"));
        std::fs::write(&ptx_path, &ptx).unwrap();
        let out = std::process::Command::new(&ptxas)
            .arg(format!("-arch=sm_{sm}"))
            .arg("-o")
            .arg(tmp.path().join(format!("m{sm}.cubin")))
            .arg(&ptx_path)
            .output()
            .expect("run ptxas");
        assert!(
            out.status.success(),
            "ptxas sm_{sm}: {}\n{ptx}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A tile element's shared address is computed in 32 bits on the module's 32-bit
/// shared pointers (the layout says `p3:32:32:32`). An index of one term is a
/// `getelementptr` on the tile (the NVPTX backend splits its constant terms into the
/// address's immediate); a sum of terms, such as a pipeline stage plus a row, is the
/// base's address plus each term's bytes (rows first, tile offsets last), so that
/// LLVM does not fold the stage and the row into one `or` that ptxas must recompute
/// for every `ldmatrix`
/// (issue 23: attention's tile step, D64 1,192 SASS to 1,164, D128 644 to 610).
/// Compiles through libnvvm and ptxas when they are configured.
#[test]
fn tile_element_addresses_add_each_index_term_to_the_32_bit_base() {
    use crate::back::nvvm::{write_string, Options};
    use crate::front::lower_sources;
    use crate::front::tests::source;
    use crate::source::SourceKind;
    let text = "fn tile_rows(out: &mut [u32], tiles: usize) {
        let mut smem = dynamic_shared();
        let tile = smem.take::<bf16>(2 * 4096);
        let lane = thread_idx().x as usize % 32;
        let row = ((lane >> 4) << 3) + (lane & 7);
        let mut acc = 0u32;
        let (q0, q1, q2, q3) = ldmatrix_x4(tile, row * 64);
        acc ^= q0 ^ q1 ^ q2 ^ q3;
        for j in 0..tiles {
            let stage = (j % 2) * 4096;
            #[unroll]
            for np in 0..4 {
                let (r0, r1, r2, r3) = ldmatrix_x4(tile, stage + (np * 16 + row) * 64 + 8);
                acc ^= r0 ^ r1 ^ r2 ^ r3;
            }
        }
        out[lane] = acc;
    }";
    let module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let ir = &out.text;
    assert!(
        ir.contains("target datalayout = \"e-p:64:64:64-p3:32:32:32-"),
        "{ir}"
    );
    // `row * 64`: one term, one GEP with a 32-bit index.
    let element = ir
        .lines()
        .find(|l| l.contains("getelementptr inbounds i16, i16 addrspace(3)*"))
        .unwrap_or_else(|| panic!("no element GEP:\n{ir}"));
    assert!(element.contains(", i32 %"), "32-bit index: {element}");
    // `stage + (np * 16 + row) * 64 + 8`: the base's address, then three terms' bytes.
    let lines: Vec<&str> = ir.lines().collect();
    let base = lines
        .iter()
        .position(|l| l.contains("= ptrtoint i16 addrspace(3)* %shared.ptr"))
        .unwrap_or_else(|| panic!("no 32-bit base address:\n{ir}"));
    let call = lines[base..]
        .iter()
        .position(|l| l.contains("ldmatrix.sync"))
        .unwrap_or_else(|| panic!("no ldmatrix after the base:\n{ir}"))
        + base;
    let sums = &lines[base..call];
    let factors: Vec<&str> = sums
        .iter()
        .filter(|l| l.trim_start().starts_with("%shared.offset") && l.contains("= mul i32"))
        .map(|l| without_debug(l).rsplit(", ").next().unwrap_or_default())
        .collect();
    let added = sums
        .iter()
        .filter(|l| l.contains("= add i32 %shared.addr") && l.contains(", %shared.offset"))
        .count();
    // stage (2 bytes an element), row (64 elements: 128 bytes), then the tile offsets
    // np * 16 (128) and 8 (2): `(np * 16 + row) * 64` is two terms.
    assert_eq!(
        (factors, added),
        (vec!["2", "128", "128", "2"], 4),
        "{}",
        sums.join("\n")
    );
    assert!(
        lines[call].contains(&format!("(i32 {})", last_defined(sums[sums.len() - 1]))),
        "the ldmatrix takes the last sum: {}",
        lines[call]
    );
    crate::back::nvvm::tests::check_with_toolchain(ir);
}

/// An IR line without its `!dbg` attachment.
fn without_debug(line: &str) -> &str {
    line.split(", !dbg").next().unwrap_or_default()
}

/// The name an IR line defines (`%x` of `%x = ...`).
fn last_defined(line: &str) -> &str {
    line.trim().split(' ').next().unwrap_or_default()
}

/// `tile_rows` with its tile index spelled `index` (of `stage`, `np` and `row`).
fn tile_rows_spelled(index: &str) -> String {
    format!(
        "fn tile_rows(out: &mut [u32], tiles: usize) {{
        let mut smem = dynamic_shared();
        let tile = smem.take::<bf16>(2 * 4096);
        let lane = thread_idx().x as usize % 32;
        let row = ((lane >> 4) << 3) + (lane & 7);
        let mut acc = 0u32;
        for j in 0..tiles {{
            let stage = (j % 2) * 4096;
            #[unroll]
            for np in 0..4 {{
                let (r0, r1, r2, r3) = ldmatrix_x4(tile, {index});
                acc ^= r0 ^ r1 ^ r2 ^ r3;
            }}
        }}
        out[lane] = acc;
    }}"
    )
}

/// The two spellings of attention's tile address (issue 23): a row term times the row
/// length plus a tile offset, or the tile's first row plus the row, times the length.
const SPELLINGS: [&str; 2] = [
    "stage + (np * 16 + row) * 64 + 8",
    "stage + row * 64 + np * 16 * 64 + 8",
];

/// Each spelling's tile address terms, in order, as (the locals each reads, its
/// scale): the stage and the row first, then `np`'s tile offset and the literal.
#[test]
fn tile_offsets_come_last_in_either_spelling() {
    use crate::front::lower_sources;
    use crate::front::tests::source;
    use crate::ir::{visit::exprs_in_block, ExprKind, Intrinsic};
    use crate::opt::ranges::RangeFacts;
    use crate::source::SourceKind;
    let expected_scales = [[1, 64, 64, 1], [1, 1, 1, 1]];
    for (spelling, scales) in SPELLINGS.iter().zip(expected_scales) {
        let text = tile_rows_spelled(spelling);
        let module = lower_sources(&[source(&text, SourceKind::Kernel, 1)])
            .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
        let (_, func) = module.kernels().next().expect("one kernel");
        let mut indices = Vec::new();
        exprs_in_block(func, &func.body, &mut |_, e| {
            if let ExprKind::Intrinsic {
                intrinsic: Intrinsic::Ldmatrix { .. },
                args,
            } = &e.kind
            {
                indices.push(args[1]);
            }
        });
        let [index] = indices[..] else {
            panic!("one ldmatrix: {indices:?}")
        };
        let facts = RangeFacts::new(func, None);
        let terms = tile_address_terms(func, &facts.of(func), index);
        let described: Vec<(Vec<String>, u64)> = terms
            .iter()
            .map(|t| {
                let mut read = Vec::new();
                crate::opt::align::locals_read(func, t.expr, &mut read);
                let names = read.iter().map(|l| func.locals[*l].name.clone()).collect();
                (names, t.scale)
            })
            .collect();
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            described,
            vec![
                (names(&["stage"]), scales[0]),
                (names(&["row"]), scales[1]),
                (names(&["np"]), scales[2]),
                (names(&[]), scales[3]),
            ],
            "{spelling}"
        );
    }
}

/// Through libnvvm (when configured), either spelling addresses every `ldmatrix` as
/// one of at most two registers (LLVM unrolls the `j` loop and keeps a remainder
/// loop) plus a constant, which ptxas folds into the instruction's immediate offset as
/// nvcc's code does, and both spellings give the same addresses; a tile offset kept in
/// its row term (`row * 128 | np * 2048`) was one register per tile.
#[test]
fn either_spelling_addresses_the_unrolled_tiles_from_one_register() {
    use crate::back::nvvm::{write_string, Options};
    use crate::front::lower_sources;
    use crate::front::tests::source;
    use crate::source::SourceKind;
    let Some((nvvm, _)) = crate::nvvm::test_toolchain() else {
        return;
    };
    let mut shapes = Vec::new();
    for spelling in SPELLINGS {
        let text = tile_rows_spelled(spelling);
        let module = lower_sources(&[source(&text, SourceKind::Kernel, 1)])
            .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
        let ir = write_string(&module, &Options::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .text;
        let ptx = nvvm
            .compile(&ir, &crate::nvvm::CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let addresses: Vec<(String, i64)> = ptx
            .lines()
            .filter(|l| l.contains("ldmatrix.sync"))
            .map(|l| {
                let address = l.rsplit('[').next().unwrap_or_default();
                base_and_offset(&ptx, address.trim_end_matches("];").trim())
            })
            .collect();
        let mut bases: Vec<&String> = addresses.iter().map(|(b, _)| b).collect();
        bases.sort();
        bases.dedup();
        assert!(
            addresses.len() >= 4 && bases.len() <= 2,
            "{spelling}: each ldmatrix one of two registers plus a constant: {addresses:?}\n{ptx}"
        );
        let mut offsets: Vec<i64> = addresses.iter().map(|(_, c)| *c).collect();
        offsets.sort();
        shapes.push((bases.len(), offsets));
    }
    assert_eq!(shapes[0], shapes[1], "both spellings: the same addresses");
}

/// The register `reg` is, and its constant offset, following `add.s32 %reg, %base,
/// constant;` definitions in `ptx` (a register with no such definition: itself, 0).
fn base_and_offset(ptx: &str, reg: &str) -> (String, i64) {
    let prefix = format!("add.s32 \t{reg}, ");
    let definition = ptx
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix(&prefix));
    let Some(operands) = definition else {
        return (reg.to_string(), 0);
    };
    let mut parts = operands.trim_end_matches(';').split(", ");
    let (base, constant) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    match constant.parse::<i64>() {
        Ok(c) if base.starts_with('%') => {
            let (root, offset) = base_and_offset(ptx, base);
            (root, offset + c)
        }
        _ => (reg.to_string(), 0),
    }
}
