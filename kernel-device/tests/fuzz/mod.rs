//! The mutant generator shared by the property tests of the checker
//! (`kernel-device/tests/fuzz_check_item.rs`) and of the whole macro expansion
//! (`kernel-macros`, which includes this file by path): a corpus of valid kernels,
//! mutated at the token level (hostile statements spliced in, like-for-like token
//! swaps, structural edits), and random expressions over the subset. fastrand, seeded,
//! keeps failures reproducible.
#![allow(dead_code)]

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

pub const CORPUS: &[&str] = &[
    "fn semis(out: &mut [u32]) { ; let a = 1u32;; out[0] = a; }",
    "fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) { let i = grid(1); if i < c.len() { c[i] = a[i] + b[i]; } }",
    "fn saxpy(alpha: f32, x: &[f32], y: &mut [f32]) { let i = grid(1); if i < y.len() { y[i] = alpha.mul_add(x[i], y[i]); } }",
    "fn mat(a: &[f64], out: &mut [f64], w: usize, h: usize) { let (x, y) = grid(2); if x < w && y < h { out[y * w + x] = a[y * w + x].sqrt() * 2.0; } }",
    "fn loops(out: &mut [i32], n: u32) { let mut acc = 0; for k in 0..n { if k % 3 == 0 { continue; } acc += k as i32; if acc > 100 { break; } } let mut j = 0usize; while j < out.len() { out[j] = acc; j += 1; } }",
    "fn lp(out: &mut [u32]) { let v = loop { break 7u32; }; 'outer: for a in 0..=4 { for b in 0..4 { if a * b > 6 { break 'outer; } } } out[0] = v << 2 | 1; }",
    "fn casts(x: &[f32], y: &mut [u8]) { let i = grid(1); if i >= x.len() { return; } let v = if x[i] > 0.5 { x[i] * 255.0 } else { -x[i] }; y[i] = v as u8; }",
    "fn helper(x: f32, k: i32) -> f32 { let m = x.powi(k).max(0.0); m.min(1.0) }",
    "fn stride(a: f32, x: &[f32], y: &mut [f32], s: usize) { for i in (grid(1)..y.len()).step_by(grid_size(1)) { y[i] = a * x[i] + y[i]; } for j in (0..=s).rev().step_by(s + 1) { y[j] = 0.0; } for k in (0u8..10).rev() { y[k as usize] += 1.0; } }",
    "fn idx(out: &mut [u32]) { let t = thread_idx().x + block_idx().x * block_dim().x; sync_threads(); if (t as usize) < out.len() { out[t as usize] = grid_dim().y ^ !0; } }",
];

/// Identifiers and tokens that stress the checker's rejections.
pub const VOCABULARY: &[&str] = &[
    "Vec",
    "Box",
    "String",
    "vec",
    "format",
    "println",
    "unsafe",
    "async",
    "await",
    "i128",
    "u128",
    "grid",
    "grid_size",
    "thread_idx",
    "x",
    "len",
    "sqrt",
    "f32",
    "usize",
    "bool",
    "match",
    "struct",
    "impl",
    "dyn",
    "self",
    "Self",
    "super",
    "crate",
    "move",
    "ref",
    "as",
    "loop",
    "while",
    "for",
    "in",
    "return",
    "break",
    "continue",
    "let",
    "mut",
    "if",
    "else",
    "true",
    "false",
    "const",
    "static",
    "where",
    "type",
    "fn",
    "helper",
    "iter",
    "map",
    "rev",
    "step_by",
];

/// The fuzzers' generator: fastrand's, seeded, so the printed seed replays a failure.
pub struct Rng(fastrand::Rng);

impl Rng {
    pub fn with_seed(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }
    pub fn next(&mut self) -> u64 {
        self.0.u64(..)
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0.usize(..n.max(1))
    }
}

fn random_leaf(rng: &mut Rng) -> TokenTree {
    match rng.below(6) {
        0 => TokenTree::Literal(Literal::string("s")),
        1 => TokenTree::Literal(Literal::u32_suffixed(rng.below(40) as u32)),
        2 => TokenTree::Literal(Literal::f64_unsuffixed(rng.below(100) as f64 / 8.0)),
        3 => TokenTree::Punct(Punct::new(
            [
                '+', '-', '*', '/', '%', '!', '&', '|', '^', '<', '>', '=', '.', ',', ';', ':',
                '?', '#', '\'', '@', '$', '~',
            ][rng.below(22)],
            if rng.below(2) == 0 {
                Spacing::Alone
            } else {
                Spacing::Joint
            },
        )),
        4 => TokenTree::Group(Group::new(
            [Delimiter::Parenthesis, Delimiter::Brace, Delimiter::Bracket][rng.below(3)],
            TokenStream::new(),
        )),
        _ => {
            let word = VOCABULARY[rng.below(VOCABULARY.len())];
            match syn::parse_str::<TokenStream>(word) {
                Ok(ts) => ts
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| TokenTree::Ident(Ident::new("x", Span::call_site()))),
                Err(_) => TokenTree::Ident(Ident::new("x", Span::call_site())),
            }
        }
    }
}

/// Statements outside the subset (and a few inside it), spliced into bodies so the
/// result usually still parses and the checker's rejections are exercised.
pub const HOSTILE_STATEMENTS: &[&str] = &[
    "let v = vec![1.0f32; 4];",
    "println!(\"{}\", 1);",
    "let s = \"text\";",
    "let bs = b\"bytes\";",
    "unsafe { }",
    "let bx = Box::new(1);",
    "let st = String::new();",
    "let c = |q: f32| q * 2.0;",
    "let r: i128 = 0;",
    "let u = 3u128;",
    "let sum: f32 = a.iter().sum();",
    "let g = grid(n);",
    "let z = x.foo();",
    "let w = helper(1.0, 2);",
    "return 5;",
    "let t = (1, 2.0); let t0 = t.0 + t.1;",
    "let m = match 1 { _ => 2 };",
    "let arr = [0u32; 4];",
    "let rr = &1;",
    "let q = some_call()?;",
    "let f = 1.0f32 + 1i32;",
    "let k: usize = 1.5;",
    "let idx = a[1.0];",
    "loop { break; }",
    "for j in 0..10u8 { continue; }",
    "let bl = true && 1;",
    "let d = thread_idx().w;",
    "sync_threads();",
    "let e = f32::consts::PI.sin();",
];

fn leaf_class(tree: &TokenTree) -> u8 {
    match tree {
        TokenTree::Ident(_) => 0,
        TokenTree::Literal(_) => 1,
        TokenTree::Punct(_) => 2,
        TokenTree::Group(_) => 3,
    }
}

/// Replaces the `*target`-th leaf of `class` (counting depth-first) with a like token.
fn replace_leaf(tokens: TokenStream, class: u8, target: &mut isize, rng: &mut Rng) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(g) => {
                let mut inner =
                    Group::new(g.delimiter(), replace_leaf(g.stream(), class, target, rng));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            leaf if leaf_class(&leaf) == class => {
                *target -= 1;
                if *target != -1 {
                    return leaf;
                }
                let span = leaf.span();
                let mut new = match class {
                    0 => {
                        TokenTree::Ident(Ident::new(VOCABULARY[rng.below(VOCABULARY.len())], span))
                    }
                    1 => TokenTree::Literal(match rng.below(6) {
                        0 => Literal::string("text"),
                        1 => Literal::i128_suffixed(-(rng.below(9) as i128)),
                        2 => Literal::byte_string(b"b"),
                        3 => Literal::character('c'),
                        4 => Literal::u64_unsuffixed(rng.next()),
                        _ => Literal::f32_suffixed(rng.below(9) as f32),
                    }),
                    _ => {
                        let op = ['+', '-', '*', '/', '%', '&', '|', '^', '<', '>'][rng.below(10)];
                        TokenTree::Punct(Punct::new(op, Spacing::Alone))
                    }
                };
                new.set_span(span);
                new
            }
            leaf => leaf,
        })
        .collect()
}

fn count_leaves(tokens: &TokenStream, class: u8) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|tree| match &tree {
            TokenTree::Group(g) => count_leaves(&g.stream(), class),
            leaf => usize::from(leaf_class(leaf) == class),
        })
        .sum()
}

/// Splices a statement at the start of the function body (the last brace group).
fn insert_statement(tokens: TokenStream, rng: &mut Rng) -> TokenStream {
    let mut trees: Vec<TokenTree> = tokens.into_iter().collect();
    if let Some(TokenTree::Group(body)) = trees.last() {
        if body.delimiter() == Delimiter::Brace {
            let statement = HOSTILE_STATEMENTS[rng.below(HOSTILE_STATEMENTS.len())];
            let extra: TokenStream = syn::parse_str(statement).unwrap_or_default();
            let mut stream = extra;
            stream.extend(body.stream());
            let mut group = Group::new(Delimiter::Brace, stream);
            group.set_span(body.span());
            let last = trees.len() - 1;
            trees[last] = TokenTree::Group(group);
        }
    }
    trees.into_iter().collect()
}

/// One random edit: mostly like-for-like (so the result still parses), sometimes
/// structural (delete, duplicate, insert a stray token).
pub fn mutate(tokens: TokenStream, rng: &mut Rng, depth: u32) -> TokenStream {
    match rng.below(10) {
        0..=3 => insert_statement(tokens, rng),
        4..=7 => {
            let class = rng.below(3) as u8;
            let count = count_leaves(&tokens, class);
            if count == 0 {
                return tokens;
            }
            let mut target = rng.below(count) as isize;
            replace_leaf(tokens, class, &mut target, rng)
        }
        _ => structural_edit(tokens, rng, depth, Span::call_site()),
    }
}

/// `parent` is the span of the enclosing group, lent to a token put into an empty one.
fn structural_edit(tokens: TokenStream, rng: &mut Rng, depth: u32, parent: Span) -> TokenStream {
    let mut trees: Vec<TokenTree> = tokens.into_iter().collect();
    let groups: Vec<usize> = (0..trees.len())
        .filter(|&i| matches!(trees[i], TokenTree::Group(_)))
        .collect();
    if !groups.is_empty() && depth < 6 && rng.below(3) != 0 {
        let at = groups[rng.below(groups.len())];
        if let TokenTree::Group(g) = &trees[at] {
            let mut inner = Group::new(
                g.delimiter(),
                structural_edit(g.stream(), rng, depth + 1, g.span()),
            );
            inner.set_span(g.span());
            trees[at] = TokenTree::Group(inner);
        }
        return trees.into_iter().collect();
    }
    let n = trees.len();
    if n == 0 {
        let mut leaf = random_leaf(rng);
        leaf.set_span(parent);
        trees.push(leaf);
        return trees.into_iter().collect();
    }
    let at = rng.below(n);
    match rng.below(3) {
        0 => {
            trees.remove(at);
        }
        1 => {
            let t = trees[at].clone();
            trees.insert(rng.below(n + 1), t);
        }
        _ => {
            // Borrow a neighbour's span: every token of a mutant stays located, so a
            // diagnostic without a location is the checker's fault, not the generator's.
            let mut leaf = random_leaf(rng);
            leaf.set_span(trees[at].span());
            trees.insert(rng.below(n + 1), leaf);
        }
    }
    trees.into_iter().collect()
}

/// A random well-formed expression over the subset's surface syntax (types may clash).
pub fn random_expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 {
        return match rng.below(7) {
            0 => "a[i]".into(),
            1 => "n".into(),
            2 => format!("{}", rng.below(10)),
            3 => format!("{}.5", rng.below(10)),
            4 => "i".into(),
            5 => "a.len()".into(),
            _ => "thread_idx().x".into(),
        };
    }
    let (l, r) = (random_expr(rng, depth - 1), random_expr(rng, depth - 1));
    match rng.below(9) {
        0 => format!("({l} + {r})"),
        1 => format!("({l} * {r})"),
        2 => format!("({l} < {r})"),
        3 => format!("({l} as f32)"),
        4 => format!("({l} as usize)"),
        5 => format!("(if {l} > {r} {{ {l} }} else {{ {r} }})"),
        6 => format!("({l}.min({r}))"),
        7 => format!("({l} >> {r})"),
        _ => format!("(-{l})"),
    }
}

/// Seed and count from `CUDAJIT_FUZZ_SEED` / `CUDAJIT_FUZZ_ITERATIONS` (default 100,000).
pub fn settings() -> (u64, usize) {
    let seed = std::env::var("CUDAJIT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15u64);
    let iterations = std::env::var("CUDAJIT_FUZZ_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    (seed, iterations)
}

/// The next mutant: a corpus kernel or a generated one, edited one to three times.
pub fn next_function(rng: &mut Rng, round: usize) -> TokenStream {
    let text = if round % 4 == 3 {
        let depth = 1 + rng.below(4) as u32;
        format!(
            "fn gen(a: &[f32], out: &mut [f32], n: u32) {{ let i = grid(1); let v = {}; out[i] = v; }}",
            random_expr(rng, depth)
        )
    } else {
        CORPUS[rng.below(CORPUS.len())].to_string()
    };
    let mut tokens: TokenStream = syn::parse_str(&text).unwrap_or_default();
    for _ in 0..=rng.below(3) {
        tokens = mutate(tokens, rng, 0);
    }
    tokens
}

/// Whether `span` points into real source text (call-site spans are empty).
pub fn is_located(span: Span) -> bool {
    !span.byte_range().is_empty()
}
