//! Generic device functions: `#[device] fn lerp<T: Float>(a: T, b: T, t: T) -> T`,
//! called with their arguments named, `lerp::<T>(a, b, t)` (a generic kernel's
//! substitution has made that `lerp::<f32>` by the time a unit is lowered). Before a
//! unit is lowered, each such call is rewritten into a call of the instantiation
//! (`lerp__f32`), made once per argument list from the template by the substitution
//! kernels use (`generics::substitute`); instantiations may call further generic
//! functions, and the templates themselves are not lowered.

use super::consts::ConstEnv;
use super::generics::{bind, extend_env, read_params, substitute, Bindings, GenericParam};
use crate::diag::Diagnostic;
use crate::ir::{ConstValue, Literal, ScalarType};
use crate::source::{FnSource, GenericArg, SourceKind};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

struct Template {
    name: String,
    index: usize,
    params: Vec<GenericParam>,
}

/// Expands `parsed` (with `envs` beside it) by the instantiations its calls name and
/// removes the generic templates. Problems are returned with the source they are in.
pub fn instantiate_device_calls<'s>(
    parsed: &mut Vec<(&'s FnSource, syn::ItemFn)>,
    envs: &mut Vec<ConstEnv>,
) -> Vec<(&'s FnSource, Diagnostic)> {
    let mut errors = Vec::new();
    let mut templates = Vec::new();
    for (index, (source, item)) in parsed.iter().enumerate() {
        let generics = &item.sig.generics;
        if source.kind != SourceKind::Device
            || (generics.params.is_empty() && generics.where_clause.is_none())
        {
            continue;
        }
        let mut diags = Vec::new();
        let params = read_params(generics, &mut diags);
        errors.extend(diags.into_iter().map(|d| (*source, d)));
        templates.push(Template {
            name: item.sig.ident.to_string(),
            index,
            params,
        });
    }
    if templates.is_empty() {
        return errors;
    }
    let mut made: Vec<String> = Vec::new();
    let mut work: Vec<usize> = (0..parsed.len())
        .filter(|i| !templates.iter().any(|t| t.index == *i))
        .collect();
    while let Some(i) = work.pop() {
        let mut rewriter = CallRewriter {
            templates: &templates,
            env: &envs[i],
            requests: Vec::new(),
            diags: Vec::new(),
        };
        rewriter.visit_block_mut(&mut parsed[i].1.block);
        let (requests, diags) = (rewriter.requests, rewriter.diags);
        errors.extend(diags.into_iter().map(|d| (parsed[i].0, d)));
        for (template, bindings, name) in requests {
            if made.contains(&name) {
                continue;
            }
            let index = templates[template].index;
            let mut item = substitute(&parsed[index].1, &bindings);
            item.sig.ident = syn::Ident::new(&name, item.sig.ident.span());
            let env = extend_env(&envs[index], &bindings);
            parsed.push((parsed[index].0, item));
            envs.push(env);
            made.push(name);
            work.push(parsed.len() - 1);
        }
    }
    let mut indices: Vec<usize> = templates.iter().map(|t| t.index).collect();
    indices.sort_unstable();
    for index in indices.into_iter().rev() {
        parsed.remove(index);
        envs.remove(index);
    }
    errors
}

/// The instantiation's function name: `lerp__f32`, `window__f32_16`.
fn mangled(name: &str, args: &[GenericArg]) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|a| match a {
            GenericArg::Type(t) => t.rust_name().to_string(),
            GenericArg::Const(v) if *v < 0 => format!("m{}", v.unsigned_abs()),
            GenericArg::Const(v) => v.to_string(),
        })
        .collect();
    format!("{name}__{}", parts.join("_"))
}

struct CallRewriter<'t> {
    templates: &'t [Template],
    env: &'t ConstEnv,
    /// (template, bindings, instantiation name) for each call rewritten.
    requests: Vec<(usize, Bindings, String)>,
    diags: Vec<Diagnostic>,
}

impl CallRewriter<'_> {
    /// A generic argument as written at a call: a scalar type, or an integer constant
    /// (a literal, or a name the function's constants give: the caller's own const
    /// parameter).
    fn argument(&self, arg: &syn::GenericArgument) -> Option<GenericArg> {
        let expr: syn::Expr = match arg {
            syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => {
                let ident = p.path.get_ident()?;
                if let Some(t) = ScalarType::from_rust_name(&ident.to_string()) {
                    return Some(GenericArg::Type(t));
                }
                syn::parse_quote!(#ident)
            }
            syn::GenericArgument::Const(e) => e.clone(),
            _ => return None,
        };
        match super::consts::eval(&expr, None, self.env).ok()?? {
            ConstValue::Scalar {
                ty,
                value: Literal::Int(bits),
            } if ty.is_signed_integer() => Some(GenericArg::Const(bits as i64 as i128)),
            ConstValue::Scalar {
                ty,
                value: Literal::Int(bits),
            } if ty.is_integer() => Some(GenericArg::Const(bits as i128)),
            _ => None,
        }
    }

    fn rewrite(&mut self, call: &mut syn::ExprCall) {
        let syn::Expr::Path(func) = &mut *call.func else {
            return;
        };
        let Some(last) = func.path.segments.last() else {
            return;
        };
        let name = last.ident.to_string();
        let Some(template) = self.templates.iter().position(|t| t.name == name) else {
            return;
        };
        let span = last.ident.span();
        let syn::PathArguments::AngleBracketed(generics) = &last.arguments else {
            self.diags.push(
                Diagnostic::new(
                    func.span(),
                    format!("`{name}` is a generic `#[device]` function: name its arguments at the call"),
                )
                .with_hint(format!("write `{name}::<T>(..)` (or `{name}::<f32>(..)`): cudajit instantiates device functions by the arguments named")),
            );
            return;
        };
        let args: Option<Vec<GenericArg>> =
            generics.args.iter().map(|a| self.argument(a)).collect();
        let Some(args) = args else {
            self.diags.push(
                Diagnostic::new(
                    generics.span(),
                    format!("cannot instantiate `{name}` with these arguments"),
                )
                .with_hint("each argument is a scalar type or an integer constant"),
            );
            return;
        };
        match bind(&self.templates[template].params, &args) {
            Ok(bindings) => {
                let instance = mangled(&name, &args);
                let ident = syn::Ident::new(&instance, span);
                func.path = syn::parse_quote!(#ident);
                self.requests.push((template, bindings, instance));
            }
            Err(message) => self.diags.push(Diagnostic::new(
                generics.span(),
                format!("cannot instantiate `{name}`: {message}"),
            )),
        }
    }
}

impl VisitMut for CallRewriter<'_> {
    fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
        syn::visit_mut::visit_expr_call_mut(self, call);
        self.rewrite(call);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use crate::front::lower_sources;
    use crate::front::tests::source;
    use crate::source::SourceKind;

    #[test]
    fn each_named_instantiation_is_made_once_and_templates_are_dropped() {
        let kernel = source(
            "fn k(x: &mut [f32], y: &mut [f64]) { \
               x[0] = twice::<f32>(x[0]) + twice::<f32>(x[1]); \
               y[0] = sum::<f64, 3>(y[1]); }",
            SourceKind::Kernel,
            1,
        );
        let twice = source(
            "fn twice<T: Float>(v: T) -> T { v + v }",
            SourceKind::Device,
            10,
        );
        let sum = source(
            "fn sum<T: Num, const N: usize>(v: T) -> T { \
               let mut acc = T::zero(); for _ in 0..N { acc += twice::<T>(v); } acc }",
            SourceKind::Device,
            20,
        );
        let module = lower_sources(&[kernel, twice, sum]).expect("lowers");
        let mut names: Vec<String> = module
            .functions
            .iter()
            .map(|(_, f)| f.name.clone())
            .collect();
        names.sort();
        assert_eq!(names, ["k", "sum__f64_3", "twice__f32", "twice__f64"]);
    }

    #[test]
    fn a_call_without_arguments_and_a_wrong_argument_are_errors() {
        let twice = source(
            "fn twice<T: Float>(v: T) -> T { v + v }",
            SourceKind::Device,
            10,
        );
        for (body, wanted) in [
            ("x[0] = twice(x[0]);", "name its arguments"),
            (
                "x[0] = twice::<i32>(1) as f32;",
                "does not implement `Float`",
            ),
        ] {
            let kernel = source(
                &format!("fn k(x: &mut [f32]) {{ {body} }}"),
                SourceKind::Kernel,
                1,
            );
            let errors = lower_sources(&[kernel, twice]).unwrap_err();
            assert!(
                errors.iter().any(|e| e.message.contains(wanted)),
                "{body}: {errors:?}"
            );
        }
    }
}
