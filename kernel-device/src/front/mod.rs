//! Frontend: syn → fully typed IR.
//!
//! Two entry points share one lowering: [`lower_sources`] (run time: a kernel and every
//! device function it reaches, calls resolved by name) and [`check_item`] (macro time:
//! one function alone, callees' signatures unknown). Type inference follows rustc:
//! see `infer.rs`; every construct outside the subset gets a spanned diagnostic with a
//! hint (`check.rs`, `types.rs`).

// async copies
mod async_copy;
mod calls;
// Hopper: clusters
mod calls_methods;
mod calls_scalar;
mod check;
mod cluster;
mod complex;
pub mod consts;
mod enums;
mod first_span;
mod generic_calls;
pub mod generics;
mod half;
mod infer;
mod intrinsics;
mod lower_expr;
mod lower_fn;
mod lower_for;
pub(crate) mod lower_match;
mod lower_place;
mod lower_slice;
mod lower_stmt;
mod lower_struct;
// tensor cores: the typed fragment API
pub mod methods;
mod mma;
mod mma_text;
pub mod nd;
mod patterns;
// Hopper: wgmma
mod setmaxnreg;
// Hopper: TMA
pub mod tma;
// print
pub mod print;
mod signature;
pub mod structs;
pub(crate) mod types;
pub mod unit;

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tests_check;
#[cfg(test)]
mod tests_fidelity;
#[cfg(test)]
mod tests_match;
#[cfg(test)]
mod tests_simt;
#[cfg(test)]
mod tests_slices;

use crate::diag::Diagnostic;
use crate::ir::{self, Handle};
use crate::source::{FnSource, SourceKind};
pub use consts::const_refs;
use consts::ConstEnv;
pub use enums::enum_repr;
use lower_fn::{lower_signature, Callees, Context, FnLowerer, Signature};
pub use structs::struct_refs;

/// A frontend error located in the user's file (run-time form of a `Diagnostic`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

fn source_error(source: &FnSource, d: &Diagnostic) -> SourceError {
    let start = d.span.start();
    SourceError {
        file: source.file.to_string(),
        line: (start.line as u32).saturating_add(source.line.saturating_sub(1)),
        column: (start.column as u32).saturating_add(1),
        message: d.text(),
    }
}

/// The options a unit's device functions are compiled with: those of the unit's
/// kernel, as in Numba, where `@cuda.jit(boundscheck=False)` covers the device
/// functions it calls (`#[device]` takes no options of its own). A unit holds one
/// kernel (`FnSource::unit`); should it hold several, the safe choice wins: checked
/// if any kernel is checked, fast math only if every kernel asks for it. `None` for a
/// unit without a kernel (device functions keep their own defaults).
fn kernel_options(sources: &[&FnSource]) -> Option<ir::FunctionOptions> {
    let mut kernels = sources.iter().filter(|s| s.kind == SourceKind::Kernel);
    let first = kernels.next()?;
    Some(kernels.fold(first.options, |acc, k| ir::FunctionOptions {
        bounds_check: acc.bounds_check || k.options.bounds_check,
        fast_math: acc.fast_math && k.options.fast_math,
        launch_bounds: acc.launch_bounds.or(k.options.launch_bounds),
        debug_assertions: acc.debug_assertions,
        debug_info: acc.debug_info || k.options.debug_info,
    }))
}

/// Builds one module from a kernel's compilation unit (`FnSource::unit`): every
/// signature is collected first, so calls resolve whatever the order of the sources.
pub fn lower_sources(sources: &[&FnSource]) -> Result<ir::Module, Vec<SourceError>> {
    let mut errors = Vec::new();
    let mut parsed: Vec<(&FnSource, syn::ItemFn)> = Vec::new();
    for source in sources {
        match syn::parse_str::<syn::ItemFn>(source.text) {
            Ok(item) => parsed.push((source, item)),
            Err(e) => errors.push(source_error(
                source,
                &Diagnostic::new(e.span(), format!("cannot parse `{}`: {e}", source.name)),
            )),
        }
    }
    // Each function sees the constants its own source recorded (rustc's values), and
    // a generic kernel the constants of its instantiation.
    let mut envs: Vec<ConstEnv> = parsed
        .iter()
        .map(|(source, _)| {
            let mut env = ConstEnv::complete(
                source
                    .consts
                    .iter()
                    .map(|c| (c.name.to_string(), (c.value)()))
                    .collect(),
            );
            env.structs = source
                .structs
                .iter()
                .filter_map(|s| Some((s.name.to_string(), s.struct_def()?)))
                .collect();
            env.enums = source
                .structs
                .iter()
                .filter_map(|s| Some((s.name.to_string(), s.enum_def()?)))
                .collect();
            env
        })
        .collect();
    // A method is a device function named `Type::method` whose `self` is a parameter.
    // The `&mut self` methods, by unit name (generic instantiation below reorders the
    // functions; methods are never generic).
    let mut mut_receivers = std::collections::HashSet::new();
    for ((source, item), env) in parsed.iter_mut().zip(&mut envs) {
        if let Some(type_name) = method_type(source, env) {
            if methods::mutates_receiver(item) {
                mut_receivers.insert(methods::unit_name(&type_name, &item.sig.ident.to_string()));
            }
            let (free, diags) = methods::as_free_fn(item, Some(&type_name));
            errors.extend(diags.iter().map(|d| source_error(source, d)));
            *item = free;
        }
        if let Err(d) = instantiate(source, item, env) {
            errors.push(source_error(source, &d));
        }
        for d in nd::desugar(item, source.kind) {
            errors.push(source_error(source, &d));
        }
    }
    // Generic device functions: one function per instantiation the unit calls.
    for (source, d) in generic_calls::instantiate_device_calls(&mut parsed, &mut envs) {
        errors.push(source_error(source, &d));
    }
    let mut sigs = Vec::new();
    let mut sig_infos = Vec::new();
    let unit_names: Vec<String> = parsed
        .iter()
        .map(|(source, item)| {
            let name = item.sig.ident.to_string();
            match method_type(source, &mut ConstEnv::default()) {
                Some(type_name) => methods::unit_name(&type_name, &name),
                None => name,
            }
        })
        .collect();
    for (i, (source, item)) in parsed.iter().enumerate() {
        let name = unit_names[i].clone();
        if let Some((other, _)) = parsed[..i]
            .iter()
            .zip(&unit_names)
            .find(|(_, n)| **n == name)
            .map(|(p, _)| p)
        {
            errors.push(source_error(
                source,
                &Diagnostic::new(item.sig.ident.span(), format!("the name `{name}` is defined by two device functions in this kernel's compilation unit (the other is in {}:{})", other.file, other.line))
                    .with_hint("rename one of them: device functions are resolved by name"),
            ));
        }
        let mut diags = Vec::new();
        let info = lower_signature(&item.sig, source.kind, &envs[i], &mut diags);
        errors.extend(diags.iter().map(|d| source_error(source, d)));
        let mut_receiver = mut_receivers.contains(&name);
        sigs.push(Signature {
            name,
            handle: Handle::new(i),
            params: info.params.iter().map(|p| p.ty.clone()).collect(),
            ret: info.ret.clone(),
            mut_receiver,
        });
        sig_infos.push(info);
    }
    let unit_options = kernel_options(sources);
    let mut module = ir::Module::default();
    for ((((source, item), info), env), unit_name) in
        parsed.iter().zip(sig_infos).zip(envs).zip(unit_names)
    {
        let options = match (source.kind, unit_options) {
            // print: `debug_assert!` follows the crate that wrote the function, as in Rust
            (SourceKind::Device, Some(kernel)) => ir::FunctionOptions {
                debug_assertions: source.options.debug_assertions,
                ..kernel
            },
            _ => source.options,
        };
        let line_offset = source.line.saturating_sub(1);
        let mut lowerer = FnLowerer::new(
            item,
            source.kind,
            source.file,
            line_offset,
            options,
            Callees::Unit(&sigs),
            info,
            Context {
                consts: env,
                globals: std::mem::take(&mut module.globals),
                prints: std::mem::take(&mut module.prints),
            },
        );
        lowerer.f.name = unit_name;
        lowerer.lower_body(item);
        let (function, diags, globals, prints) = lowerer.finish();
        errors.extend(diags.iter().map(|d| source_error(source, d)));
        module.functions.append(function);
        module.globals = globals;
        module.prints = prints;
    }
    if errors.is_empty() {
        Ok(module)
    } else {
        drop_follow_ups(&mut errors, |e| e.message.contains(ERROR_TYPE));
        Err(errors)
    }
}

/// For a `#[device]` method's source, its type's name (`Vec3`), after adding the
/// type to `env` under that name (its body says `Self`, rewritten to the name).
fn method_type(source: &FnSource, env: &mut ConstEnv) -> Option<String> {
    let own = source.self_type()?;
    if let Some(def) = own.struct_def() {
        let name = def.name.clone();
        env.structs.push((name.clone(), def));
        return Some(name);
    }
    let def = own.enum_def()?;
    let name = def.name.clone();
    env.enums.push((name.clone(), def));
    Some(name)
}

/// How an already reported type prints.
const ERROR_TYPE: &str = "{error}";

/// Drops the messages about a value whose type is `{error}`: each follows one already
/// reported (the value's own mistake), and showing it would be a second error for one
/// mistake, in the checker's placeholder words. Kept only if nothing else is reported.
fn drop_follow_ups<T>(diags: &mut Vec<T>, is_follow_up: impl Fn(&T) -> bool) {
    if diags.iter().any(|d| !is_follow_up(d)) {
        diags.retain(|d| !is_follow_up(d));
    }
}

/// Replaces a generic kernel's `item` by its instantiation for `source.instance` and
/// adds the const arguments to `env`. Non-generic functions are left alone.
fn instantiate(
    source: &FnSource,
    item: &mut syn::ItemFn,
    env: &mut ConstEnv,
) -> Result<(), Diagnostic> {
    let is_generic =
        !item.sig.generics.params.is_empty() || item.sig.generics.where_clause.is_some();
    if source.kind != SourceKind::Kernel || (!is_generic && source.instance.is_empty()) {
        // A generic device function is reported by the signature check.
        return Ok(());
    }
    let at = item.sig.ident.span();
    let mut diags = Vec::new();
    let params = generics::read_params(&item.sig.generics, &mut diags);
    if let Some(d) = diags.into_iter().next() {
        return Err(d);
    }
    let bindings = generics::bind(&params, source.instance).map_err(|message| {
        Diagnostic::new(
            at,
            format!(
                "cannot instantiate `{}::<{}>`: {message}",
                source.name,
                crate::source::instance_text(source.instance)
            ),
        )
    })?;
    *item = generics::substitute(item, &bindings);
    *env = generics::extend_env(env, &bindings);
    Ok(())
}

/// The device functions `item` calls (see `calls::device_calls`), for a generic
/// kernel as its first representative instantiation calls them (`T::max(a, b)` is
/// the scalar's own method, not a device function).
pub fn device_calls(item: &syn::ItemFn) -> Vec<syn::Path> {
    let params = generics::read_params(&item.sig.generics, &mut Vec::new());
    match generics::representative_bindings(&params).first() {
        Some(bindings) if !params.is_empty() => {
            calls::device_calls(&generics::substitute(item, bindings))
        }
        _ => calls::device_calls(item),
    }
}

/// Whether `device_api::in_kernel` (what a kernel's rustc-checked twin glob-imports) may
/// export a function of this name that the front end takes for
/// a call of a `#[device]` function (the twin's `grid(N)` stand-ins, hidden helpers):
/// a user's `#[device]` fn of that name is then called through a route that keeps it
/// visible in the twin (`kernel-macros`' `routed_callees`), not by its bare name.
pub fn twin_glob_may_shadow(name: &str) -> bool {
    name.starts_with("__")
        || matches!(
            name,
            "grid_1" | "grid_2" | "grid_3" | "grid_size_1" | "grid_size_2" | "grid_size_3"
        )
}

/// Macro-time check of one function in isolation: every construct outside the subset
/// and every type error, each at its token. Calls of other functions are assumed to be
/// `#[device]` functions whose signatures are checked when the unit is compiled. A
/// generic kernel is checked once per representative instantiation
/// ([`generics::representative_bindings`]); the first that fails is reported, its
/// messages saying which types they were found with.
pub fn check_item(item: &syn::ItemFn, kind: SourceKind) -> Vec<Diagnostic> {
    let is_generic =
        !item.sig.generics.params.is_empty() || item.sig.generics.where_clause.is_some();
    if !is_generic {
        return lower_item_for_inspection(item, kind).1;
    }
    let mut diags = Vec::new();
    let params = generics::read_params(&item.sig.generics, &mut diags);
    if !diags.is_empty() {
        return diags;
    }
    for bindings in generics::representative_bindings(&params) {
        let instance = generics::substitute(item, &bindings);
        let mut diags = lower_item_for_inspection(&instance, kind).1;
        if !diags.is_empty() {
            let with = bindings.describe();
            if !with.is_empty() {
                for d in &mut diags {
                    d.message.push_str(&format!(" (with `{with}`)"));
                }
            }
            return diags;
        }
    }
    // `x * 2.0` passes with `T = f32` but is rustc's E0308 in the twin: say it in
    // cudajit's words, with the way to write a constant of type `T`.
    if let Some(bindings) = generics::literal_bindings(&params) {
        let instance = generics::substitute(item, &bindings);
        let names: Vec<String> = bindings
            .types
            .iter()
            .filter(|(_, t)| *t == ir::ScalarType::F16)
            .map(|(n, _)| n.to_string())
            .collect();
        let t = names.first().cloned().unwrap_or_else(|| "T".into());
        return lower_item_for_inspection(&instance, kind)
            .1
            .into_iter()
            .filter_map(|d| {
                let (what, example) = if d.message.contains("found floating-point number")
                    || d.message.contains("{float}")
                {
                    ("a float literal", format!("`{t}::from_f64(2.0)`"))
                } else if d.message.contains("found integer") || d.message.contains("{integer}") {
                    ("an integer literal", format!("`{t}::from_i32(2)`"))
                } else {
                    return None;
                };
                Some(
                    Diagnostic::new(
                        d.span,
                        format!("{what} is not a `{t}`: in a generic kernel a constant of type `{t}` is made from one"),
                    )
                    .with_hint(format!(
                        "write {example} (or `{t}::zero()`, `{t}::one()`): rustc gives a literal no type parameter's type"
                    )),
                )
            })
            .collect();
    }
    Vec::new()
}

/// Lowers one function alone (callees unknown) and returns the IR even if there are
/// diagnostics: for tests and tools that inspect inferred types.
pub fn lower_item_for_inspection(
    item: &syn::ItemFn,
    kind: SourceKind,
) -> (ir::Function, Vec<Diagnostic>) {
    // N-d array parameters become slices and integers first (`nd`).
    let mut desugared = item.clone();
    let mut diags = nd::desugar(&mut desugared, kind);
    let item = &desugared;
    // The macro cannot see the crate's constants: they are unknown here (rustc checks
    // them in the twin) and known when the unit is compiled.
    let env = ConstEnv::default();
    let info = lower_signature(&item.sig, kind, &env, &mut diags);
    let mut lowerer = FnLowerer::new(
        item,
        kind,
        "",
        0,
        ir::FunctionOptions::default(),
        Callees::Unknown,
        info,
        Context {
            consts: env,
            globals: ir::Arena::new(),
            prints: Default::default(),
        },
    );
    lowerer.lower_body(item);
    let (f, body_diags, _, _) = lowerer.finish();
    diags.extend(body_diags);
    drop_follow_ups(&mut diags, |d| d.text().contains(ERROR_TYPE));
    (f, diags)
}
