//! Kernels and device functions after `impl` and `trait` blocks, inside modules and
//! fn bodies, with braces in comments and strings before them, are not mistaken for
//! items of an `impl` (the macro reads the source before its attribute).
use cudajit::prelude::*;

struct S;

impl S {
    // A `}` in a comment, a "}" in a string and '}' in a char do not close this block.
    const TEXT: &'static str = "}";
    const BRACE: char = '}';
}

trait T {
    fn f() {}
}

#[device]
fn after_impl(x: f32) -> f32 {
    x + 1.0
}

#[kernel]
fn after_trait(c: &mut [f32]) {
    c[0] = after_impl(c[0]);
}

mod inner {
    use cudajit::prelude::*;

    impl super::S {
        pub fn g() {}
    }

    #[kernel]
    pub fn in_module_after_impl(c: &mut [f32]) {
        c[0] = 1.0;
    }
}

fn host() {
    #[kernel]
    fn in_fn_body(c: &mut [f32]) {
        c[0] = 2.0;
    }
    let _ = in_fn_body::source();
}

fn main() {
    host();
    let _ = inner::in_module_after_impl::source();
    S::g_unused();
    S::g();
    assert_eq!((S::TEXT, S::BRACE), ("}", '}'));
}

impl S {
    fn g_unused() {
        <S as T>::f();
    }
}

impl T for S {}
