//! The kernel-subset text that the typed tensor-core API (`FragA`/`FragB`/`Acc`,
//! `mma_sync`, fragment loads, stores, `ldmatrix`, `stmatrix`) expands to, written from
//! `proc::mma`'s tables: packing fragment elements into the registers of the
//! register-level intrinsics and back, the per-lane offsets of a fragment in a tile,
//! and the one bounds check per fragment. Pure string building; `front::mma` lowers
//! the text (operands bound to `__cudajit_0`, `__cudajit_1`, ... beforehand).

use crate::ir::checks::INDEX_MESSAGE;
use crate::proc::mma::{
    element_position, fragment_len, lane_terms, ldmatrix_start_terms, matrices_of, registers_of,
    tile_offset, MmaElem, MmaRole, MmaShape, TileLayout, FRAGMENT_INDEX_MESSAGE,
};

/// A fragment type: `role<shape, elem>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragment {
    pub role: MmaRole,
    pub shape: MmaShape,
    pub elem: MmaElem,
}

impl Fragment {
    pub fn len(self) -> usize {
        fragment_len(self.shape, self.role)
    }

    /// `FragA<M16N8K16, bf16>`: how users write it, and the struct's name.
    pub fn display(self) -> String {
        format!(
            "{}<{}, {}>",
            self.role.type_name(),
            self.shape.name(),
            self.elem.rust_name()
        )
    }

    /// `FragA::<M16N8K16, bf16>` (an expression path).
    fn path(self) -> String {
        self.display().replacen('<', "::<", 1)
    }

    fn registers(self) -> usize {
        registers_of(self.shape, self.role, self.elem)
    }

    /// Elements packed in one register.
    fn per_register(self) -> usize {
        self.len() / self.registers()
    }
}

/// Builds the fragment from element expressions.
fn construct(frag: Fragment, elems: &[String]) -> String {
    format!("{}::__from_elements([{}])", frag.path(), elems.join(", "))
}

/// Register `reg` of fragment value `value` as the register-level intrinsics take it.
pub fn register(frag: Fragment, value: &str, reg: usize) -> String {
    let per = frag.per_register();
    let e = |k: usize| format!("{value}.elems[{}]", reg * per + k);
    match frag.elem {
        MmaElem::F16 | MmaElem::BF16 => format!(
            "(({}.to_bits() as u32) | (({}.to_bits() as u32) << 16))",
            e(0),
            e(1)
        ),
        MmaElem::I8 | MmaElem::U8 => {
            let parts: Vec<String> = (0..4)
                .map(|k| format!("(({} as u8 as u32) << {})", e(k), 8 * k))
                .collect();
            format!("({})", parts.join(" | "))
        }
        MmaElem::E4M3 => {
            let parts: Vec<String> = (0..4)
                .map(|k| format!("(({}.to_bits() as u32) << {})", e(k), 8 * k))
                .collect();
            format!("({})", parts.join(" | "))
        }
        MmaElem::Tf32 => format!("{}.to_bits()", e(0)),
        MmaElem::F32 | MmaElem::F64 | MmaElem::I32 => e(0),
    }
}

/// The elements held in register expression `reg` (in element order).
fn unpack(frag: Fragment, reg: &str) -> Vec<String> {
    match frag.elem {
        MmaElem::F16 | MmaElem::BF16 => {
            let t = frag.elem.rust_name();
            vec![
                format!("{t}::from_bits({reg} as u16)"),
                format!("{t}::from_bits(({reg} >> 16) as u16)"),
            ]
        }
        MmaElem::I8 | MmaElem::U8 => {
            let t = frag.elem.rust_name();
            (0..4)
                .map(|k| format!("(({reg} >> {}) as u8 as {t})", 8 * k))
                .collect()
        }
        MmaElem::E4M3 => (0..4)
            .map(|k| format!("e4m3::from_bits(({reg} >> {}) as u8)", 8 * k))
            .collect(),
        MmaElem::Tf32 => vec![format!("f32::from_bits({reg})")],
        MmaElem::F32 | MmaElem::F64 | MmaElem::I32 => vec![reg.to_string()],
    }
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|k| format!("__cudajit_{prefix}{k}")).collect()
}

/// `let (r0, r1) = call;` (a plain `let r0 = call;` for one register).
fn bind_registers(regs: &[String], call: &str) -> String {
    if regs.len() == 1 {
        format!("let {} = {call};", regs[0])
    } else {
        format!("let ({}) = {call};", regs.join(", "))
    }
}

/// Every element `value` (`zero()`: the storage type's zero).
pub fn fill(frag: Fragment, value: Option<&str>) -> String {
    let zero = match frag.elem.storage() {
        s if s.is_half() => format!("{s}::from_f32(0.0)"),
        s if s.is_float() => format!("(0.0 as {s})"),
        s => format!("(0 as {s})"),
    };
    construct(frag, &vec![value.unwrap_or(&zero).to_string(); frag.len()])
}

/// `mma_sync(&a, &b, &mut acc)` with `a`, `b`, `acc` bound to `__cudajit_0..2` and
/// the accumulator's place as `__cudajit_P0`.
pub fn mma_sync(a: Fragment, b: Fragment, acc: Fragment) -> String {
    let mut operands = Vec::new();
    for (frag, value) in [(a, "__cudajit_0"), (b, "__cudajit_1"), (acc, "__cudajit_2")] {
        operands.extend((0..frag.registers()).map(|r| register(frag, value, r)));
    }
    let intrinsic = format!(
        "mma_{}_{}_{}",
        a.shape.ptx(),
        a.elem.rust_name(),
        acc.elem.rust_name()
    );
    let d = names("d", acc.registers());
    let elems: Vec<String> = d.iter().flat_map(|r| unpack(acc, r)).collect();
    format!(
        "{{ {} __cudajit_P0 = {}; }}",
        bind_registers(&d, &format!("{intrinsic}({})", operands.join(", "))),
        construct(acc, &elems)
    )
}

/// The lane's `g = lane >> 2`, `t = lane % 4` from `lane_expr`.
fn lane_bindings(lane_expr: &str) -> String {
    format!(
        "let __cudajit_lane = {lane_expr}; let __cudajit_g = __cudajit_lane >> 2; \
         let __cudajit_t = __cudajit_lane & 3;"
    )
}

/// This lane's row and column terms (`proc::mma::lane_terms`).
fn lane_row_col(frag: Fragment) -> (String, String) {
    let ((rg, rt), (cg, ct)) = lane_terms(frag.shape, frag.role);
    (
        format!("({rg} * __cudajit_g + {rt} * __cudajit_t)"),
        format!("({cg} * __cudajit_g + {ct} * __cudajit_t)"),
    )
}

/// The bounds check of a whole fragment: the tile's last element (its greatest
/// offset) must be inside `slice`, with std's index panic. `ld`, `row`, `col` are
/// operand names.
fn tile_check(
    frag: Fragment,
    layout: TileLayout,
    slice: &str,
    ld: &str,
    at: (&str, &str),
) -> String {
    let (rows, cols) = frag.shape.dims(frag.role);
    let last = match layout {
        TileLayout::Row => format!("({} + {}) * {ld} + {} + {}", at.0, rows - 1, at.1, cols - 1),
        TileLayout::Col => format!("({} + {}) * {ld} + {} + {}", at.1, cols - 1, at.0, rows - 1),
    };
    let message = INDEX_MESSAGE.replace("{1}", "{}").replace("{0}", "{}");
    format!(
        "let __cudajit_last = {last}; let __cudajit_len = {slice}.len(); \
         if __cudajit_last >= __cudajit_len {{ panic!(\"{message}\", __cudajit_len, __cudajit_last); }}"
    )
}

/// The offsets of this lane's elements in a tile, after one check of the whole
/// fragment: `(setup, [offset expressions])`, each offset marked unchecked.
fn element_offsets(
    frag: Fragment,
    layout: TileLayout,
    slice: &str,
    ld: &str,
    at: (&str, &str),
) -> (String, Vec<String>) {
    let (lr, lc) = lane_row_col(frag);
    let base = match layout {
        TileLayout::Row => format!("({} + {lr}) * {ld} + {} + {lc}", at.0, at.1),
        TileLayout::Col => format!("({} + {lc}) * {ld} + {} + {lr}", at.1, at.0),
    };
    let setup = format!(
        "{} {} let __cudajit_base = {base};",
        lane_bindings("lane_id() as usize"),
        tile_check(frag, layout, slice, ld, at)
    );
    let offsets = (0..frag.len())
        .map(|i| {
            let (r, c) = element_position(frag.shape, frag.role, 0, i);
            let (major, minor) = match layout {
                TileLayout::Row => (r, c),
                TileLayout::Col => (c, r),
            };
            format!("__cudajit_unchecked(__cudajit_base + {major} * {ld} + {minor})")
        })
        .collect();
    (setup, offsets)
}

/// `Frag::load_row(src, ld, row, col)` / `load_col` (operands `__cudajit_0..3`).
pub fn load(frag: Fragment, layout: TileLayout) -> String {
    let (setup, offsets) = element_offsets(
        frag,
        layout,
        "__cudajit_0",
        "__cudajit_1",
        ("__cudajit_2", "__cudajit_3"),
    );
    let elems: Vec<String> = offsets
        .iter()
        .map(|o| format!("__cudajit_0[{o}]"))
        .collect();
    format!("{{ {setup} {} }}", construct(frag, &elems))
}

/// `acc.store_row(dst, ld, row, col)` / `store_col` (receiver `__cudajit_0`, operands
/// `__cudajit_1..4`).
pub fn store(frag: Fragment, layout: TileLayout) -> String {
    let (setup, offsets) = element_offsets(
        frag,
        layout,
        "__cudajit_1",
        "__cudajit_2",
        ("__cudajit_3", "__cudajit_4"),
    );
    let stores: Vec<String> = offsets
        .iter()
        .enumerate()
        .map(|(i, o)| format!("__cudajit_1[{o}] = __cudajit_0.elems[{i}];"))
        .collect();
    format!("{{ {setup} {} }}", stores.concat())
}

/// `frag.row_col(i)` / `Frag::position(lane, i)`: (row, col) of element `index` of
/// lane `lane_expr`, with the twin's panic past `len()`.
pub fn position(frag: Fragment, lane_expr: &str, index: &str) -> String {
    let (lr, lc) = lane_row_col(frag);
    let n = frag.len();
    let mut chain = String::new();
    for i in 0..n {
        let (r, c) = element_position(frag.shape, frag.role, 0, i);
        if i + 1 < n {
            chain += &format!("if __cudajit_i == {i} {{ ({r} as usize, {c} as usize) }} else ");
        } else {
            chain += &format!("{{ ({r} as usize, {c} as usize) }}");
        }
    }
    format!(
        "{{ let __cudajit_i: usize = {index}; \
         if __cudajit_i >= {n} {{ panic!(\"{FRAGMENT_INDEX_MESSAGE}\", __cudajit_i); }} \
         {} let (__cudajit_r, __cudajit_c) = {chain}; \
         (__cudajit_r + {lr}, __cudajit_c + {lc}) }}",
        lane_bindings(&format!("(({lane_expr}) as usize) % 32"))
    )
}

/// How an `ldmatrix`/`stmatrix` names its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowAddress {
    /// `(tile, ld, row, col)`: each lane's row from the fragment tables.
    Tile(TileLayout),
    /// `(tile, offset)`: the lane's own element offset (swizzled tiles).
    Lane,
}

/// The `ldmatrix_x{n}[_trans]` / `stmatrix_...` intrinsic name.
fn matrix_intrinsic(op: &str, count: usize, trans: bool) -> String {
    format!("{op}_x{count}{}", if trans { "_trans" } else { "" })
}

/// The per-lane element offset into the tile (`__cudajit_0`) that lane names to an
/// `ldmatrix`/`stmatrix` of `frag` (`pair`: two B fragments, the second at n + 8).
fn lane_offset(frag: Fragment, address: RowAddress, pair: bool) -> String {
    let layout = match address {
        RowAddress::Lane => return "__cudajit_1".into(),
        RowAddress::Tile(layout) => layout,
    };
    let matrices = matrices_of(frag.shape, frag.role, frag.elem).unwrap_or(1);
    let mut chain = String::new();
    for q in 0..matrices {
        let Some(((r0, c0), (dr, dc))) =
            ldmatrix_start_terms(frag.shape, frag.role, frag.elem, layout, q)
        else {
            continue;
        };
        let start = format!("({r0} + {dr} * __cudajit_r, {c0} + {dc} * __cudajit_r)");
        if q + 1 < matrices {
            chain += &format!("if __cudajit_q == {q} {{ {start} }} else ");
        } else {
            chain += &format!("{{ {start} }}");
        }
    }
    // Lanes whose row the instruction ignores name a row of the used matrices, so that
    // every lane's row check passes (`.x1`/`.x2`).
    let (lanes, extra_col) = if pair {
        (16, "+ 8 * (__cudajit_lane >> 4)")
    } else {
        (8 * matrices, "")
    };
    let offset = tile_offset_text(layout, "__cudajit_2", "__cudajit_sr", "__cudajit_sc");
    format!(
        "{{ let __cudajit_lane = lane_id() as usize; \
         let __cudajit_q = (__cudajit_lane % {lanes}) >> 3; let __cudajit_r = __cudajit_lane & 7; \
         let (__cudajit_fr, __cudajit_fc) = {chain}; \
         let __cudajit_sr = __cudajit_3 + __cudajit_fr; \
         let __cudajit_sc = __cudajit_4 + __cudajit_fc {extra_col}; \
         {offset} }}"
    )
}

fn tile_offset_text(layout: TileLayout, ld: &str, row: &str, col: &str) -> String {
    // The same formula as `proc::mma::tile_offset`.
    debug_assert_eq!(
        tile_offset(layout, 10, 2, 3),
        if layout == TileLayout::Row { 23 } else { 32 }
    );
    match layout {
        TileLayout::Row => format!("{row} * {ld} + {col}"),
        TileLayout::Col => format!("{col} * {ld} + {row}"),
    }
}

/// `Frag::ldmatrix_*(tile, ld, row, col)` (operands `__cudajit_0, 2, 3, 4`; the `_at`
/// forms `(tile, offset)` as `__cudajit_0, 1`): the fragment (a pair: a tuple of two).
pub fn ldmatrix(frag: Fragment, address: RowAddress, trans: bool, pair: bool) -> String {
    let matrices = matrices_of(frag.shape, frag.role, frag.elem).unwrap_or(1);
    let count = if pair { 2 * matrices } else { matrices };
    let regs = names("m", count);
    let call = format!(
        "{}(__cudajit_0, {})",
        matrix_intrinsic("ldmatrix", count, trans),
        lane_offset(frag, address, pair)
    );
    let per_frag = frag.registers();
    let frags: Vec<String> = regs
        .chunks(per_frag)
        .map(|chunk| {
            let elems: Vec<String> = chunk.iter().flat_map(|r| unpack(frag, r)).collect();
            construct(frag, &elems)
        })
        .collect();
    let value = if pair {
        format!("({})", frags.join(", "))
    } else {
        frags[0].clone()
    };
    format!("{{ {} {value} }}", bind_registers(&regs, &call))
}

/// `acc.stmatrix_*(tile, ..)` (receiver `__cudajit_5`, the rest as for `ldmatrix`).
pub fn stmatrix(frag: Fragment, address: RowAddress, trans: bool) -> String {
    let count = matrices_of(frag.shape, frag.role, frag.elem).unwrap_or(1);
    let regs: Vec<String> = (0..count)
        .map(|r| register(frag, "__cudajit_5", r))
        .collect();
    format!(
        "{}(__cudajit_0, {}, {})",
        matrix_intrinsic("stmatrix", count, trans),
        lane_offset(frag, address, false),
        regs.join(", ")
    )
}

/// `to_tf32(x)` (operand `__cudajit_0`): `proc::mma::to_tf32`'s rounding, to nearest
/// with ties away from zero on the magnitude; NaN and infinities pass.
pub const TO_TF32: &str = "{ if __cudajit_0.is_finite() { f32::from_bits((__cudajit_0.to_bits() + 0x1000) & !0x1fff) } else { __cudajit_0 } }";

#[cfg(test)]
mod tests {
    use super::*;

    const BF16_A: Fragment = Fragment {
        role: MmaRole::A,
        shape: MmaShape::M16N8K16,
        elem: MmaElem::BF16,
    };

    #[test]
    fn registers_pack_low_element_first() {
        assert_eq!(
            register(BF16_A, "x", 1),
            "((x.elems[2].to_bits() as u32) | ((x.elems[3].to_bits() as u32) << 16))"
        );
        let i8_b = Fragment {
            role: MmaRole::B,
            shape: MmaShape::M16N8K32,
            elem: MmaElem::I8,
        };
        assert!(register(i8_b, "x", 1).starts_with("(((x.elems[4] as u8 as u32) << 0)"));
    }

    #[test]
    fn the_names_are_the_rust_spellings() {
        assert_eq!(BF16_A.display(), "FragA<M16N8K16, bf16>");
        assert!(mma_sync(
            BF16_A,
            Fragment {
                role: MmaRole::B,
                ..BF16_A
            },
            Fragment {
                role: MmaRole::Acc,
                elem: MmaElem::F32,
                ..BF16_A
            }
        )
        .contains("mma_m16n8k16_bf16_f32("));
    }
}
