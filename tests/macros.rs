//! What `#[kernel]` / `#[device]` embed and generate, checked without a GPU: the
//! source text and line the run-time compiler sees, the dependency statics, the twin's
//! rewriting of `grid(N)`, and that launchers take exactly the documented argument kinds.

use cudajit::prelude::*;

mod helpers {
    use cudajit::prelude::*;

    #[device]
    pub fn square(x: f32) -> f32 {
        x * x
    }

    /// Calls another device function through `self::`, which the dependency must
    /// follow one module deeper.
    #[device]
    pub fn square_plus(x: f32, y: f32) -> f32 {
        self::square(x) + y
    }
}

#[kernel]
fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = helpers::square(a[i]) + b[i];
    }
}

const VECADD_FN_LINE: u32 = 24;

/// Documented kernel with options, scalars of every shape and a 2-D index.
#[kernel(boundscheck = false, fastmath = true)]
pub fn fill2d(out: &mut [i32], width: usize, mut value: i32, flag: bool) {
    let (x, y) = grid(2);
    let (sx, _sy) = grid_size(2);
    if flag {
        value += 1;
    }
    if x < width && y * width + x < out.len() {
        out[y * width + x] = value + (sx as i32) * 0;
    }
}

#[kernel]
fn uses_chain(a: &mut [f32]) {
    let i = grid(1);
    a[i] = helpers::square_plus(a[i], 1.0);
}

/// A device function reading its thread's position: its host copy (the fn itself)
/// runs with the simulated thread index.
#[device]
fn square_plus_own_slot(a: &mut [f32]) {
    let i = grid(1);
    a[i] = helpers::square_plus(a[i], 1.0);
}

#[kernel]
fn no_params() {
    sync_threads();
}

#[test]
fn source_text_has_no_attributes_and_keeps_lines() {
    let src = vecadd::source();
    assert_eq!(src.name, "vecadd");
    assert_eq!(src.kind, cudajit::__private::SourceKind::Kernel);
    assert_eq!(src.file, file!());
    assert_eq!(src.line, VECADD_FN_LINE, "line of the `fn` token");
    assert!(
        src.text.trim_start().starts_with("fn vecadd"),
        "{}",
        src.text
    );
    assert!(
        !src.text.contains("kernel"),
        "attribute stripped: {}",
        src.text
    );
    // Every token on its original line: the `if` is 2 lines below `fn`.
    let if_line = src
        .text
        .lines()
        .position(|l| l.trim_start().starts_with("if"))
        .unwrap();
    assert_eq!(if_line, 2, "{}", src.text);
    // The text re-parses as the same function.
    let reparsed: syn::ItemFn = syn::parse_str(src.text).expect("text parses");
    assert_eq!(reparsed.sig.ident, "vecadd");
    assert!(src.options.bounds_check && !src.options.fast_math);
}

#[test]
fn options_and_visibility() {
    let src = fill2d::source();
    assert!(!src.options.bounds_check);
    assert!(src.options.fast_math);
    assert!(
        src.text.trim_start().starts_with("fn fill2d"),
        "visibility stripped: {}",
        src.text
    );
    assert!(src.deps.is_empty());
}

#[test]
fn deps_follow_device_calls_across_modules() {
    let src = vecadd::source();
    assert_eq!(src.deps.len(), 1);
    assert_eq!(src.deps[0].name, "square");
    assert_eq!(src.deps[0].kind, cudajit::__private::SourceKind::Device);
    let unit: Vec<_> = uses_chain::source().unit().iter().map(|s| s.name).collect();
    assert_eq!(unit, ["uses_chain", "square_plus", "square"]);
    assert!(std::ptr::eq(
        helpers::square_plus::__CUDAJIT_FN.deps[0],
        &helpers::square::__CUDAJIT_FN
    ));
}

#[test]
fn device_functions_stay_callable_on_the_host() {
    assert_eq!(helpers::square(3.0), 9.0);
    assert_eq!(helpers::square_plus(2.0, 1.0), 5.0);
    let src = &helpers::square::__CUDAJIT_FN;
    assert!(
        src.text.trim_start().starts_with("fn square"),
        "{}",
        src.text
    );
    let reparsed: syn::ItemFn = syn::parse_str(src.text).expect("text parses");
    assert_eq!(reparsed.sig.inputs.len(), 1);
    assert_eq!(src.line, 11);
}

/// Never called: only has to type-check. Each launcher takes host slices, vectors and
/// device arrays for slice parameters and the exact scalar type for scalars.
#[allow(dead_code, unreachable_code)]
fn launchers_type_check() -> cudajit::Result<()> {
    let a = vec![1.0f32; 4];
    let mut c = vec![0.0f32; 4];
    let da: DeviceArray<f32> = cudajit::to_device(&a)?;
    let mut dc: DeviceArray<f32> = DeviceArray::zeros(4)?;
    vecadd::launch(LaunchConfig::new(1, 4), &a, &a[..], &mut c)?;
    vecadd::launch(LaunchConfig::new(1u32, 4usize), &da, &a, &mut dc)?;
    launch!(vecadd[1, 4](&a, &da, &mut c[..]))?;
    let stream = Device::default()?.new_stream()?;
    launch!(vecadd[1, 4, stream, 0](&a, &a, &mut c))?;
    launch!(self::vecadd[(1, 1), (4, 1, 1)](&a, &a, &mut c,))?;
    let mut out = vec![0i32; 16];
    // SAFETY: `fill2d` writes only `out[y * width + x]` below `out.len()` (its guard).
    unsafe { launch!(fill2d[(1, 1), (4, 4)](&mut out, 4, 7, true)) }?;
    launch!(no_params[1, 1]())?;
    Ok(())
}

#[test]
fn kernel_items_are_reached_through_the_kernels_type() {
    // The kernel's name is a type holding its items (and a fn that is never called):
    // `use .. as` renames both, and the items are the same statics.
    use vecadd as k;
    assert!(std::ptr::eq(k::source(), vecadd::source()));
    assert!(std::ptr::eq(<k>::source(), self::vecadd::source()));
    assert_eq!(k::source().name, "vecadd");
}

#[test]
fn launch_without_gpu_is_an_error_not_a_panic() {
    if cudajit::Device::default().is_ok() {
        return; // covered by tests/gpu.rs
    }
    let a = vec![1.0f32; 4];
    let mut c = vec![0.0f32; 4];
    let err = launch!(vecadd[1, 4](&a, &a, &mut c)).unwrap_err();
    assert!(!err.to_string().is_empty());
}

#[test]
fn twin_runs_on_the_host_as_thread_zero() {
    // A device function runs on the host with the simulated thread index (a kernel's
    // body cannot be called: its fn is the kernel's signature, for `launch!` only).
    cudajit::__private::device_api::__set_thread(
        Dim3::new(2, 0, 0),
        Dim3::new(1, 0, 0),
        Dim3::new(4, 1, 1),
        Dim3::new(2, 1, 1),
    );
    let mut c = vec![0.0f32; 8];
    square_plus_own_slot(&mut c);
    assert_eq!(c[6], 1.0);
}

/// `cargo xtask build-device` re-renders kernels from the file (`kernel_device::offline`);
/// the AOT key only matches if that text equals what the macro embedded (from the
/// file's text, comments as whitespace; `-1` is one literal to proc-macro2's lexer,
/// two tokens to rustc's).
#[test]
fn source_text_equals_an_offline_rendering_of_the_file() {
    let found = kernel_device::offline::scan(include_str!("macros.rs"), "tests/macros.rs")
        .expect("this file parses");
    let text_of = |name: &str| {
        let f = found
            .iter()
            .find(|f| f.item.sig.ident == name)
            .unwrap_or_else(|| panic!("{name} found"));
        let source = kernel_device::offline::fn_source(f, &[]);
        (source.text, source.line)
    };
    assert_eq!(
        text_of("fill2d"),
        (fill2d::source().text, fill2d::source().line)
    );
    let commented = commented_and_negative::source();
    assert_eq!(
        text_of("commented_and_negative"),
        (commented.text, commented.line)
    );
    assert!(!commented.text.contains("//"), "{}", commented.text);
}

#[kernel]
fn commented_and_negative(out: &mut [i32]) {
    // a comment, which the embedded text keeps as whitespace
    let i = grid(1); /* a block
                     comment */
    if i < out.len() {
        out[i] = match i as i32 {
            i32::MIN..=-1 => -1,
            _ => 1,
        }; // trailing
    }
}

/// Issue 7: valid Rust whose literal types come from a device function's signature,
/// which the macro (seeing one item) does not know; rustc infers them, so must we.
mod inferred_from_callee {
    use cudajit::prelude::*;

    #[device]
    pub fn wide(v: u64) -> u64 {
        v / 2
    }

    #[device]
    pub fn half(v: u8) -> u8 {
        v / 2
    }

    #[kernel]
    pub fn literal_args(out: &mut [u64], small: &mut [u8], a: u8) {
        out[0] = wide(5_000_000_000);
        small[0] = (half(a) + 1).min(3);
    }
}

#[test]
fn literals_infer_from_device_signatures() {
    use inferred_from_callee::*;
    assert_eq!(wide(5_000_000_000), 2_500_000_000);
    assert_eq!((half(200) + 1).min(3), 3);
    assert!(literal_args::source().text.contains("wide(5_000_000_000)"));
}

/// Kernels reach the device RNG's `#[device]` functions, defined in the `cudajit` crate
/// and brought in by the prelude, like their own: the unit gathers them across crates
/// and lowers to NVVM IR (what the first launch compiles).
#[kernel]
fn draws_normals(states: &mut [u64], out: &mut [f64]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = xoroshiro128p_normal_f64(states, i)
            + cudajit::random::xoroshiro128p_uniform_f64(states, i);
    }
}

#[test]
fn device_rng_functions_are_gathered_from_the_cudajit_crate() {
    let unit: Vec<_> = draws_normals::source()
        .unit()
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(
        unit,
        [
            "draws_normals",
            "xoroshiro128p_normal_f64",
            "xoroshiro128p_uniform_f64",
            "xoroshiro128p_next"
        ]
    );
    let compiled = kernel_device::nvvm_ir_for_kernel(
        draws_normals::source(),
        &kernel_device::back::nvvm::Options::default(),
    )
    .unwrap();
    assert!(compiled
        .nvvm_ir
        .contains("@__cudajit_dev_xoroshiro128p_next("));
    assert!(!compiled.cooperative);
    assert!(compiled
        .panic_sites
        .iter()
        .any(|s| s.file == "src/random.rs" && s.function == "xoroshiro128p_next"));
}

#[kernel]
fn waits_for_the_grid(out: &mut [u32]) {
    out[grid(1)] = 1;
    grid_sync();
}

#[test]
fn a_grid_sync_makes_the_compiled_unit_cooperative() {
    let compiled = kernel_device::nvvm_ir_for_kernel(
        waits_for_the_grid::source(),
        &kernel_device::back::nvvm::Options::default(),
    )
    .unwrap();
    assert!(compiled.cooperative);
    assert!(compiled.nvvm_ir.contains("%envreg1"));
}

/// The README's way to look at a kernel: `cudajit::inspect::inspect(k::source(), arch)`,
/// through the facade, with the device functions it calls in the same module.
#[test]
fn inspect_through_the_facade() {
    if std::env::var_os("CUDAJIT_NVVM_PATH").is_none() {
        eprintln!("skipped: CUDAJIT_NVVM_PATH is not set (cargo xtask test sets it)");
        return;
    }
    let inspection = cudajit::inspect::inspect(vecadd::source(), "compute_90").unwrap();
    assert_eq!(inspection.kernel, "vecadd");
    assert!(
        inspection.nvvm_ir.contains("@vecadd("),
        "{}",
        inspection.nvvm_ir
    );
    assert!(
        inspection.ptx.contains(".entry vecadd("),
        "{}",
        inspection.ptx
    );
    assert!(
        inspection.ptx.contains(".target sm_90"),
        "{}",
        inspection.ptx
    );
}

#[kernel]
fn generic_scale<T: cudajit::Float>(x: &mut [T], a: T) {
    let i = grid(1);
    if i < x.len() {
        x[i] = x[i] * a;
    }
}

cudajit::instantiate!(generic_scale::<f64>);

#[kernel]
fn generic_fill<T: cudajit::Num, const N: usize>(x: &mut [T], v: T) {
    let i = grid(1);
    if i < x.len() / N {
        x[i * N] = v;
    }
}

/// Never called: what its launches register is decided when it compiles. A launch
/// naming scalar types and literals registers its instantiation (`generic_fill::<f32, 4>`;
/// `generic_fill::<f16, 2>` through a `use` in the function's body, which the
/// registration sees too); one naming the function's own generic parameter cannot (an
/// item cannot name `T`) and compiles without it.
#[allow(dead_code)]
fn launches_generic_kernels<T: cudajit::Float + cudajit::DeviceScalar>(
    x: &mut [T],
    a: T,
    y: &mut [f32],
) -> cudajit::Result<()> {
    use self::generic_fill as fill_in_body;
    launch!(generic_fill::<f32, 4>[1, 32](&mut *y, 1.0))?;
    launch!(generic_fill::<f32, 4>[1, 32](y, 2.0))?;
    let mut halves = vec![f16::from_f32(0.0); 8];
    launch!(fill_in_body::<f16, 2>[1, 32](&mut halves, f16::from_f32(1.0)))?;
    launch!(generic_fill::<f16, { 1 + 2 }>[1, 32](&mut halves, f16::from_f32(1.0)))?;
    launch!(generic_scale::<T>[1, 32](&mut *x, a))?;
    launch!(generic_fill::<T, 2>[1, 32](x, a))
}

/// Every non-generic kernel registers its source, once, for opening a GPU to compile it
/// while the context is created (kernel_host's `compile::while_opening`); a generic
/// kernel, whose instantiations are not known before they launch, registers the ones
/// `instantiate!` lists.
#[test]
fn non_generic_kernels_register_for_compiling_while_a_gpu_opens() {
    let registered: Vec<&'static cudajit::__private::FnSource> =
        cudajit::__private::inventory::iter::<cudajit::__private::RegisteredKernel>
            .into_iter()
            .map(|kernel| (kernel.0)())
            .collect();
    let count = |name: &str| registered.iter().filter(|s| s.name == name).count();
    for kernel in ["vecadd", "fill2d", "uses_chain", "no_params"] {
        assert_eq!(count(kernel), 1, "{kernel}");
    }
    assert!(registered
        .iter()
        .any(|s| std::ptr::eq(*s, vecadd::source())));
    // The generic kernel itself is not compiled, only its listed instantiation.
    assert!(!registered
        .iter()
        .any(|s| std::ptr::eq(*s, generic_scale::source())));
    let listed = generic_scale::__cudajit_instance::<f64>().0;
    assert_eq!(
        registered
            .iter()
            .filter(|s| std::ptr::eq(**s, listed))
            .count(),
        1,
        "{}",
        listed.name
    );
    let unlisted = generic_scale::__cudajit_instance::<f32>().0;
    assert!(!registered.iter().any(|s| std::ptr::eq(*s, unlisted)));
    // Launches naming concrete instantiations register them, once per launch (opening
    // compiles each source once); `{ 1 + 2 }` is a const expression, not a literal: its
    // launch registers nothing, nor do those naming `T`.
    let times = |source: &'static cudajit::__private::FnSource| {
        registered
            .iter()
            .filter(|s| std::ptr::eq(**s, source))
            .count()
    };
    assert_eq!(times(generic_fill::__cudajit_instance::<f32, 4>().0), 2);
    assert_eq!(times(generic_fill::__cudajit_instance::<f16, 2>().0), 1);
    assert_eq!(
        count("generic_fill"),
        3,
        "generic_fill::<f32, 4> twice, ::<f16, 2> once"
    );
    assert_eq!(
        count("generic_scale"),
        1,
        "only the listed generic_scale::<f64>"
    );
}
