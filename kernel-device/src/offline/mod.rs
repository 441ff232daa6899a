//! Offline discovery: finds `#[kernel]`/`#[device]` functions in a file's text and
//! builds their `FnSource`s exactly as the macro does (attributes and visibility
//! dropped, text from [`render_preserving_lines`], `line` of the `fn` token), so the
//! NVVM IR, and the AOT key hashed from it, equal what the run-time compiler
//! produces. `cargo xtask build-device` and the snapshot tests use it; it does no I/O
//! (callers read the files).

use crate::front::consts::{eval, item_type, ConstEnv};
use crate::ir::{ConstValue, EnumDef, StructDef, Type};
mod methods;
mod structs;

use crate::source::{
    render_preserving_lines, ConstItem, FnSource, GenericArg, SourceKind, StructItem,
};
use quote::ToTokens;
use std::sync::Arc;
use structs::{derives_device_copy, enum_def, struct_defs};

/// One attributed function found in a file.
#[derive(Clone)]
pub struct Found {
    pub kind: SourceKind,
    pub item: syn::ItemFn,
    /// The path `file!()` would give (workspace-relative, `/`-separated).
    pub file: String,
    /// The attribute's options, read by the macro's own parser.
    pub options: crate::ir::FunctionOptions,
    /// Every `const`/`static` item of the file a kernel can read, evaluated here as
    /// rustc would (the macro asks rustc instead).
    pub consts: Vec<(String, ConstValue)>,
    /// Every `#[derive(DeviceCopy)]` struct of the file (the macro asks the derive).
    pub structs: Vec<(String, Arc<StructDef>)>,
    /// Every `#[derive(DeviceCopy)]` enum of the file.
    pub enums: Vec<(String, Arc<EnumDef>)>,
    /// For a `#[device]` method, the name of its `impl` block's type (`Vec3`).
    pub self_type: Option<String>,
    /// A method of a `#[device] impl` block: callable without its type named
    /// (`registry`).
    pub registered: bool,
    /// The macro's text of a free function, rendered from the file's text as the
    /// macro renders it (`source::render_tokens_from_file`); `None`: from the item's
    /// tokens ([`render`]).
    pub rendered: Option<(String, u32)>,
}

fn attribute_kind(attr: &syn::Attribute) -> Option<SourceKind> {
    match attr.path().segments.last()?.ident.to_string().as_str() {
        "kernel" => Some(SourceKind::Kernel),
        "device" => Some(SourceKind::Device),
        _ => None,
    }
}

/// The attributed functions of one file's `text` (also inside inline modules and fn
/// bodies). `file` is recorded as the functions' `file!()`.
pub fn scan(text: &str, file: &str) -> Result<Vec<Found>, String> {
    let parsed = syn::parse_file(text).map_err(|e| {
        let at = e.span().start();
        format!("{file}:{}:{}: {e}", at.line, at.column + 1)
    })?;
    struct Visitor<'f> {
        file: &'f str,
        text: &'f str,
        line_starts: Vec<usize>,
        found: Vec<Found>,
        items: Vec<(String, syn::Type, syn::Expr)>,
        structs: Vec<syn::ItemStruct>,
        enums: Vec<syn::ItemEnum>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Visitor<'_> {
        fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
            self.items
                .push((c.ident.to_string(), (*c.ty).clone(), (*c.expr).clone()));
        }
        fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
            if matches!(s.mutability, syn::StaticMutability::None) {
                self.items
                    .push((s.ident.to_string(), (*s.ty).clone(), (*s.expr).clone()));
            }
        }
        fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
            if derives_device_copy(&s.attrs) {
                self.structs.push(s.clone());
            }
        }
        fn visit_item_enum(&mut self, e: &'ast syn::ItemEnum) {
            if derives_device_copy(&e.attrs) {
                self.enums.push(e.clone());
            }
        }
        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            for attr in &item.attrs {
                if let Some(kind) = attribute_kind(attr) {
                    self.found.push(Found {
                        kind,
                        item: item.clone(),
                        file: self.file.to_string(),
                        options: options(attr),
                        consts: Vec::new(),
                        structs: Vec::new(),
                        enums: Vec::new(),
                        self_type: None,
                        registered: false,
                        rendered: render_from_file(item, self.text, &self.line_starts),
                    });
                    break;
                }
            }
            syn::visit::visit_item_fn(self, item);
        }
        fn visit_item_impl(&mut self, block: &'ast syn::ItemImpl) {
            if block.trait_.is_none() {
                self.found.extend(methods::device_methods(block, self.file));
            }
            syn::visit::visit_item_impl(self, block);
        }
    }
    let mut visitor = Visitor {
        file,
        text,
        line_starts: crate::source::line_starts(text),
        found: Vec::new(),
        items: Vec::new(),
        structs: Vec::new(),
        enums: Vec::new(),
    };
    syn::visit::Visit::visit_file(&mut visitor, &parsed);
    let consts = evaluate_items(&visitor.items);
    let mut env = ConstEnv::complete(consts.clone());
    env.enums = visitor
        .enums
        .iter()
        .filter_map(|e| Some((e.ident.to_string(), Arc::new(enum_def(e, &env)?))))
        .collect();
    let structs = struct_defs(&visitor.structs, &env);
    let mut found = visitor.found;
    for f in &mut found {
        f.consts = consts.clone();
        f.structs = structs.clone();
        f.enums = env.enums.clone();
    }
    Ok(found)
}

/// Evaluates the items in dependency order (an item may name one defined later);
/// items that are not constant tables or scalars a kernel can read are left out.
fn evaluate_items(items: &[(String, syn::Type, syn::Expr)]) -> Vec<(String, ConstValue)> {
    let mut env = ConstEnv::complete(Vec::new());
    let mut left: Vec<&(String, syn::Type, syn::Expr)> = items.iter().collect();
    loop {
        let before = left.len();
        left.retain(|(name, ty, expr)| {
            let Some(ty) = item_type(ty, &env) else {
                return true;
            };
            match eval(expr, Some(&ty), &env) {
                Ok(Some(v)) if v.ty() == ty => {
                    env.values.push((name.clone(), v));
                    false
                }
                _ => true,
            }
        });
        if left.len() == before {
            return env.values;
        }
    }
}

/// The options of `#[kernel(..)]`, parsed as the macro parses them
/// (`proc::options`); a mistake the macro would reject keeps that option's default.
fn options(attr: &syn::Attribute) -> crate::ir::FunctionOptions {
    match &attr.meta {
        syn::Meta::List(list) => {
            crate::proc::options::parse_kernel_options(list.tokens.clone(), &mut Vec::new())
        }
        _ => crate::ir::FunctionOptions::DEFAULT,
    }
}

/// `item`'s tokens as the macro sees them after it drops the attributes and the
/// visibility.
fn bare_tokens(item: &syn::ItemFn) -> proc_macro2::TokenStream {
    let mut bare = item.clone();
    bare.attrs.clear();
    bare.vis = syn::Visibility::Inherited;
    bare.to_token_stream()
}

/// The macro's text of a free function `item` of the file `text` (whose lines start
/// at `line_starts`), rendered from that text as the macro renders it
/// (`source::render_tokens_from_file`); `None` where that cannot render it.
fn render_from_file(
    item: &syn::ItemFn,
    text: &str,
    line_starts: &[usize],
) -> Option<(String, u32)> {
    crate::source::render_tokens_from_file(
        text,
        |line| line_starts.get(line.checked_sub(1)?).copied(),
        &bare_tokens(item),
    )
}

/// The macro's text rendering of `item`: (text, line of the first token).
pub fn render(item: &syn::ItemFn) -> (String, u32) {
    render_preserving_lines(bare_tokens(item))
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// A leaked `FnSource` for `found` with the given dependencies.
pub fn fn_source(found: &Found, deps: &'static [&'static FnSource]) -> &'static FnSource {
    let (text, line) = found
        .rendered
        .clone()
        .unwrap_or_else(|| render(&found.item));
    Box::leak(Box::new(FnSource {
        name: leak(found.item.sig.ident.to_string()),
        kind: found.kind,
        text: leak(text),
        file: leak(found.file.clone()),
        line,
        options: found.options,
        deps,
        consts: leak_consts(&found.consts),
        structs: methods::with_self_type(
            leak_structs(&found.structs, &found.enums),
            found.self_type.as_deref(),
        ),
        instance: &[],
    }))
}

fn leak_structs(
    structs: &[(String, Arc<StructDef>)],
    enums: &[(String, Arc<EnumDef>)],
) -> &'static [StructItem] {
    let mut items: Vec<StructItem> = structs
        .iter()
        .map(|(name, def)| {
            let ty = Type::Struct(def.clone());
            StructItem {
                name: leak(name.clone()),
                def: Box::leak(Box::new(move || ty.clone())),
                enum_def: &|| None,
            }
        })
        .collect();
    items.extend(enums.iter().map(|(name, def)| {
        let def = (**def).clone();
        let ty = Type::Scalar(def.repr);
        StructItem {
            name: leak(name.clone()),
            def: Box::leak(Box::new(move || ty.clone())) as &'static (dyn Fn() -> Type + Sync),
            enum_def: Box::leak(Box::new(move || Some(def.clone()))),
        }
    }));
    Box::leak(items.into_boxed_slice())
}

fn leak_consts(consts: &[(String, ConstValue)]) -> &'static [ConstItem] {
    let items: Vec<ConstItem> = consts
        .iter()
        .map(|(name, value)| {
            let value = value.clone();
            ConstItem {
                name: leak(name.clone()),
                value: Box::leak(Box::new(move || value.clone())),
            }
        })
        .collect();
    Box::leak(items.into_boxed_slice())
}

/// The kernel's unit in the macro's order (`FnSource::unit`: breadth-first over device
/// calls in first-call order, each function once), as indices into `all`. Calls resolve
/// by the last path segment's name, preferring a device fn of the same file.
pub fn unit_order(kernel: usize, all: &[Found]) -> Result<Vec<usize>, String> {
    let mut order = vec![kernel];
    let mut next = 0;
    while next < order.len() {
        for pick in direct_callees(order[next], all)? {
            if !order.contains(&pick) {
                order.push(pick);
            }
        }
        next += 1;
    }
    Ok(order)
}

/// What `all[caller]` calls, as its macro lists its deps: device functions in
/// first-call order, then methods (`methods::called_methods`).
fn direct_callees(caller: usize, all: &[Found]) -> Result<Vec<usize>, String> {
    let mut order = Vec::new();
    let caller = &all[caller];
    for path in crate::front::device_calls(&caller.item) {
        let name = path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let candidates: Vec<usize> = (0..all.len())
            .filter(|&i| {
                all[i].kind == SourceKind::Device
                    && all[i].self_type.is_none()
                    && all[i].item.sig.ident == name
            })
            .collect();
        let same_file: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| all[i].file == caller.file)
            .collect();
        let pick = match (same_file.as_slice(), candidates.as_slice()) {
            ([one], _) | ([], [one]) => *one,
            ([], []) => {
                return Err(format!(
                    "{}: `{}` calls `{}`, which is no #[device] fn in the scanned sources",
                    caller.file,
                    caller.item.sig.ident,
                    path.to_token_stream()
                ))
            }
            _ => {
                return Err(format!(
                    "{}: `{name}` is ambiguous among #[device] fns",
                    caller.file
                ))
            }
        };
        if !order.contains(&pick) {
            order.push(pick);
        }
    }
    // After the device functions, as the macro lists them (`callees::method_probes`).
    for pick in methods::called_methods(caller, all) {
        if !order.contains(&pick) {
            order.push(pick);
        }
    }
    Ok(order)
}

/// The leaked `FnSource` of kernel `all[kernel]` whose `unit()` is the whole
/// compilation unit, in the order the macro-built statics would give.
pub fn kernel_source(kernel: usize, all: &[Found]) -> Result<&'static FnSource, String> {
    let root = flattened_source(kernel, all)?;
    // The methods of `#[device] impl` blocks, as the run time's registry has them:
    // each with its direct callees as deps, so that the unit's breadth-first order
    // past them is the run time's.
    let mut built = std::collections::HashMap::new();
    let mut registered = Vec::new();
    for (i, found) in all.iter().enumerate() {
        if found.registered {
            registered.push(graph_source(i, all, &mut built, &mut Vec::new())?);
        }
    }
    let unit = crate::front::unit::complete(vec![root], &registered);
    // The kernel's deps list the whole unit in order, so `unit()` reproduces it.
    let deps: Vec<&'static FnSource> = unit[1..].iter().map(|s| without_deps(s)).collect();
    Ok(fn_source(&all[kernel], Box::leak(deps.into_boxed_slice())))
}

/// `all[index]` whose deps are its whole unit, flattened in order (each without deps).
fn flattened_source(index: usize, all: &[Found]) -> Result<&'static FnSource, String> {
    let order = unit_order(index, all)?;
    let deps: Vec<&'static FnSource> = order[1..]
        .iter()
        .map(|&d| fn_source(&all[d], &[]))
        .collect();
    Ok(fn_source(&all[index], Box::leak(deps.into_boxed_slice())))
}

/// `all[index]` with its direct callees as deps, each built the same way (once; a
/// call cycle, which the validator rejects, is cut).
fn graph_source(
    index: usize,
    all: &[Found],
    built: &mut std::collections::HashMap<usize, &'static FnSource>,
    building: &mut Vec<usize>,
) -> Result<&'static FnSource, String> {
    if let Some(done) = built.get(&index) {
        return Ok(done);
    }
    if building.contains(&index) {
        return Ok(fn_source(&all[index], &[]));
    }
    building.push(index);
    let mut deps = Vec::new();
    for callee in direct_callees(index, all)? {
        deps.push(graph_source(callee, all, built, building)?);
    }
    building.pop();
    let source = fn_source(&all[index], Box::leak(deps.into_boxed_slice()));
    built.insert(index, source);
    Ok(source)
}

fn without_deps(source: &'static FnSource) -> &'static FnSource {
    if source.deps.is_empty() {
        return source;
    }
    Box::leak(Box::new(FnSource {
        deps: &[],
        ..*source
    }))
}

/// One instantiation of a generic kernel named in a file: `axpy::<f32>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedInstance {
    pub kernel: String,
    pub args: Vec<GenericArg>,
}

/// The generic-kernel instantiations a file names, for `cargo xtask build-device`:
/// each path in `instantiate!(axpy::<f32>, tile::<f64, 16>)` and each named launch
/// `launch!(tile::<f32, 16>[grid, block](..))`. Only literal arguments count (scalar
/// type names, integer literals): `tile::<T, N>` inside generic host code names no
/// instantiation by itself, and a launch that infers `T` from its arguments is not
/// seen here (list it in `instantiate!`).
pub fn instantiations(text: &str) -> Vec<NamedInstance> {
    let Ok(file) = syn::parse_file(text) else {
        return Vec::new();
    };
    struct Visitor(Vec<NamedInstance>);
    impl<'ast> syn::visit::Visit<'ast> for Visitor {
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            let name = mac.path.segments.last().map(|s| s.ident.to_string());
            let paths: Vec<syn::Path> = match name.as_deref() {
                Some("instantiate") => {
                    let parser =
                        syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated;
                    syn::parse::Parser::parse2(parser, mac.tokens.clone())
                        .map(|list| list.into_iter().collect())
                        .unwrap_or_default()
                }
                Some("launch") => {
                    // The kernel path is every token before the launch shape `[..]`.
                    let head: proc_macro2::TokenStream = mac
                        .tokens
                        .clone()
                        .into_iter()
                        .take_while(|t| {
                            !matches!(t, proc_macro2::TokenTree::Group(g)
                                if g.delimiter() == proc_macro2::Delimiter::Bracket)
                        })
                        .collect();
                    syn::parse2::<syn::Path>(head).into_iter().collect()
                }
                _ => Vec::new(),
            };
            self.0.extend(paths.iter().filter_map(named_instance));
            syn::visit::visit_macro(self, mac);
        }
    }
    let mut visitor = Visitor(Vec::new());
    syn::visit::Visit::visit_file(&mut visitor, &file);
    let mut found: Vec<NamedInstance> = Vec::new();
    for instance in visitor.0 {
        if !found.contains(&instance) {
            found.push(instance);
        }
    }
    found
}

/// `axpy::<f32, 16>` as an instantiation, if every argument is a literal.
fn named_instance(path: &syn::Path) -> Option<NamedInstance> {
    let last = path.segments.last()?;
    let syn::PathArguments::AngleBracketed(generics) = &last.arguments else {
        return None;
    };
    let args = generics
        .args
        .iter()
        .map(|arg| match arg {
            syn::GenericArgument::Type(syn::Type::Path(p)) => p
                .path
                .get_ident()
                .and_then(|i| crate::ir::ScalarType::from_rust_name(&i.to_string()))
                .map(GenericArg::Type),
            syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            })) => n.base10_parse::<i128>().ok().map(GenericArg::Const),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(NamedInstance {
        kernel: last.ident.to_string(),
        args,
    })
}

#[cfg(test)]
mod instantiation_tests {
    use super::*;
    use crate::ir::ScalarType;
    use crate::source::GenericArg;

    #[test]
    fn finds_listed_and_named_launches_with_literal_arguments() {
        let text = r#"
            cudajit::instantiate!(axpy::<f32>, axpy::<f64>, tile::<i32, 16>);
            fn main() {
                launch!(tile::<f32, 32>[(4, 4), (32, 32)](&a, &mut b)).unwrap();
                launch!(axpy[1, 1](a, &x, &mut y)).unwrap();
                launch!(tile::<T, N>[1, 1](&a, &mut b)).unwrap();
                launch!(axpy::<f32>[1, 1](a, &x, &mut y)).unwrap();
            }
        "#;
        let ty = GenericArg::Type;
        let found = instantiations(text);
        let want = [
            ("axpy", vec![ty(ScalarType::F32)]),
            ("axpy", vec![ty(ScalarType::F64)]),
            ("tile", vec![ty(ScalarType::I32), GenericArg::Const(16)]),
            ("tile", vec![ty(ScalarType::F32), GenericArg::Const(32)]),
        ];
        assert_eq!(found.len(), want.len(), "{found:?}");
        for ((kernel, args), got) in want.iter().zip(&found) {
            assert_eq!((&got.kernel[..], &got.args), (*kernel, args));
        }
    }
}
