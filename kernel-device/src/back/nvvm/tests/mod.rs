//! Hand-built IR → text checks. When `CUDAJIT_NVVM_PATH` and `CUDAJIT_PTXAS` are set,
//! every module written here also goes through real libnvvm and ptxas.

use super::*;
use crate::ir::*;

// async copies
mod async_copy;
mod flow;
mod launch_proof;
mod loop_versioning;
mod loops;
// Hopper
mod mbarrier;
mod ops;
mod slices;
// Hopper: TMA
mod tma;
// Hopper: TMA
mod tma_calls;
mod versioning;

/// A terse way to build functions by hand.
pub struct F(Function);

impl F {
    fn new(name: &str, kind: FunctionKind) -> F {
        F(Function {
            name: name.into(),
            kind,
            options: FunctionOptions::default(),
            file: "tests/hand.rs".into(),
            loc: SourceLoc { line: 1, column: 1 },
            params: Vec::new(),
            ret: Type::Unit,
            locals: Arena::new(),
            exprs: Arena::new(),
            expr_locs: Vec::new(),
            body: Block::default(),
            unchecked_indices: Default::default(),
            predicated_loads: Default::default(),
        })
    }
    fn param(&mut self, name: &str, ty: Type) -> Handle<Local> {
        let local = self.local(name, ty.clone());
        self.0.params.push(Param {
            name: name.into(),
            ty,
            local,
        });
        local
    }
    fn local(&mut self, name: &str, ty: Type) -> Handle<Local> {
        self.0.locals.append(Local {
            name: name.into(),
            ty,
            mutable: true,
            loc: SourceLoc::default(),
        })
    }
    fn e(&mut self, kind: ExprKind, ty: Type) -> Handle<Expr> {
        let line = self.0.exprs.len() as u32 + 10;
        self.0
            .add_expr(Expr { kind, ty }, SourceLoc { line, column: 5 })
    }
    fn int(&mut self, s: ScalarType, v: i64) -> Handle<Expr> {
        self.e(ExprKind::Literal(Literal::Int(v as u64)), Type::Scalar(s))
    }
    fn float(&mut self, s: ScalarType, v: f64) -> Handle<Expr> {
        self.e(ExprKind::Literal(Literal::Float(v)), Type::Scalar(s))
    }
    fn read(&mut self, l: Handle<Local>) -> Handle<Expr> {
        let ty = self.0.locals[l].ty.clone();
        self.e(ExprKind::Local(l), ty)
    }
    fn bin(&mut self, op: BinaryOp, lhs: Handle<Expr>, rhs: Handle<Expr>) -> Handle<Expr> {
        let ty = if op.is_comparison() {
            Type::Scalar(ScalarType::Bool)
        } else {
            self.0.exprs[lhs].ty.clone()
        };
        self.e(ExprKind::Binary { op, lhs, rhs }, ty)
    }
    fn index(&mut self, slice: Handle<Local>, index: Handle<Expr>) -> Handle<Expr> {
        let Type::Slice { elem, .. } = self.0.locals[slice].ty else {
            panic!()
        };
        let slice = self.read(slice);
        let loc = self.0.loc_of(slice);
        self.e(
            ExprKind::Load(Place::slice_element(slice, index, loc)),
            Type::Scalar(elem),
        )
    }
    fn stmt(&mut self, s: Stmt) {
        self.0.body.stmts.push(s);
    }
    fn expr_stmt(&mut self, kind: ExprKind, ty: Type) {
        let e = self.e(kind, ty);
        self.stmt(Stmt::Expr(e));
    }
}

pub fn slice(elem: ScalarType, mutable: bool) -> Type {
    Type::Slice { elem, mutable }
}
pub const F32: Type = Type::Scalar(ScalarType::F32);
pub const USIZE: Type = Type::Scalar(ScalarType::Usize);
pub const BOOL: Type = Type::Scalar(ScalarType::Bool);

pub fn module(functions: Vec<F>) -> Module {
    let mut m = Module::default();
    for f in functions {
        m.functions.append(f.0);
    }
    m
}

/// Writes the module, and when the toolchain is configured compiles it for sm_90.
pub fn write(m: &Module) -> Output {
    let out = write_string(m, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let again = write_string(m, &Options::default()).unwrap();
    assert_eq!(out.text, again.text, "output must be deterministic");
    check_with_toolchain(&out.text);
    out
}

pub fn check_with_toolchain(text: &str) {
    let Some((nvvm, ptxas)) = crate::nvvm::test_toolchain() else {
        return;
    };
    let ptx = nvvm
        .compile(text, &crate::nvvm::CompileOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n--- module ---\n{text}"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let ptx_path = dir.join("m.ptx");
    std::fs::write(&ptx_path, &ptx).unwrap();
    let status = std::process::Command::new(ptxas)
        .args(["-arch=sm_90", "-o"])
        .arg(dir.join("m.cubin"))
        .arg(&ptx_path)
        .output()
        .expect("run ptxas");
    assert!(
        status.status.success(),
        "ptxas: {}\n{ptx}",
        String::from_utf8_lossy(&status.stderr)
    );
}
