//! libnvvm, loaded at run time with `dlopen` (never linked, so the crate builds and
//! its other parts work on machines without CUDA): NVVM IR text + libdevice → PTX.
//!
//! Search order for the library: `CUDAJIT_NVVM_PATH` (a file or a directory; when
//! set, nothing else is tried), `$CUDA_HOME`/`$CUDA_PATH` `/nvvm/lib64/libnvvm.so`,
//! `/usr/local/cuda`, the pip wheels (`nvidia-nvvm`: `nvidia/cu13/lib/libnvvm.so.4`;
//! older `nvidia-cuda-nvcc`: `nvidia/cuda_nvcc/nvvm/lib64`) in the usual Python
//! package directories and `$VIRTUAL_ENV`/`$CONDA_PREFIX`. Never the current directory
//! or its parents: `cargo xtask` passes the copy it installs in `CUDAJIT_NVVM_PATH`.

mod ptx_fixups;
mod search;

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use search::{LIBDEVICE_PATH_ENV, NVVM_PATH_ENV};

#[derive(Debug, thiserror::Error)]
pub enum NvvmError {
    #[error("libnvvm not found. Searched:\n{}\nInstall it with `pip install nvidia-nvvm==13.0.88` (or a CUDA toolkit), run the tests with `cargo xtask test` (which installs one and passes it in {NVVM_PATH_ENV}), or set {NVVM_PATH_ENV} to the libnvvm.so file", list(.searched))]
    NotFound { searched: Vec<PathBuf> },
    #[error("{NVVM_PATH_ENV} is set, but no libnvvm is there. Looked at:\n{}\nPoint it at libnvvm.so (e.g. <site-packages>/nvidia/cu13/lib/libnvvm.so.4 from `pip install nvidia-nvvm==13.0.88`) or a directory holding it", list(.searched))]
    ExplicitNotFound { searched: Vec<PathBuf> },
    #[error("cannot load libnvvm from {}: {message}", .path.display())]
    Load { path: PathBuf, message: String },
    #[error("{} has no symbol `{symbol}`; is it libnvvm?", .path.display())]
    MissingSymbol { path: PathBuf, symbol: String },
    #[error("libdevice (libdevice.10.bc) not found next to {}. Searched:\n{}\nSet {LIBDEVICE_PATH_ENV} to the file", .library.display(), list(.searched))]
    LibdeviceNotFound {
        library: PathBuf,
        searched: Vec<PathBuf>,
    },
    #[error("cannot read {}: {message}", .path.display())]
    Io { path: PathBuf, message: String },
    #[error("libnvvm {call} failed: {message} (code {code})")]
    Api {
        call: &'static str,
        code: i32,
        message: String,
    },
    #[error("libnvvm rejected the NVVM IR:\n{log}")]
    Verify { log: String },
    #[error("libnvvm failed to compile the NVVM IR:\n{log}")]
    Compile { log: String },
    #[error("invalid compile input: {0}")]
    InvalidInput(String),
    /// A failure of the first `Nvvm::shared()` call, repeated to later callers.
    #[error("{0}")]
    Shared(String),
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| format!("  {}", p.display()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Options for one compilation (libnvvm's command-line options).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// Virtual architecture, e.g. `"compute_90"`.
    pub arch: String,
    /// `-opt=`: 3 (default) or 0.
    pub opt_level: u8,
    /// `-ftz=1 -prec-div=0 -prec-sqrt=0 -fma=1`; otherwise `-fma=0`: libnvvm contracts
    /// `a * b + c` into one fused multiply-add by default, which rounds once where Rust
    /// rounds twice (results differ in the last bits, and an overflowing product gives
    /// NaN instead of Rust's finite value), so exact kernels turn contraction off.
    pub fast_math: bool,
    /// `-generate-line-info`.
    pub line_info: bool,
    /// `-g`: full debug information (for cuda-gdb); libnvvm then ignores `-opt`.
    pub debug: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            arch: "compute_90".into(),
            opt_level: 3,
            fast_math: false,
            line_info: false,
            debug: false,
        }
    }
}

impl CompileOptions {
    /// The option strings handed to libnvvm.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            format!("-arch={}", self.arch),
            format!("-opt={}", self.opt_level),
        ];
        if self.fast_math {
            args.extend(["-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"].map(String::from));
        } else {
            // Rust never contracts; `mul_add` is an explicit `llvm.fma`, unaffected.
            args.push("-fma=0".into());
        }
        if self.debug {
            args.push("-g".into());
        } else if self.line_info {
            args.push("-generate-line-info".into());
        }
        args
    }
}

type Program = *mut c_void;
type Res = c_int;

/// The entry points used, resolved once at load.
struct Api {
    get_error_string: unsafe extern "C" fn(Res) -> *const c_char,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Res,
    ir_version: unsafe extern "C" fn(*mut c_int, *mut c_int, *mut c_int, *mut c_int) -> Res,
    create_program: unsafe extern "C" fn(*mut Program) -> Res,
    destroy_program: unsafe extern "C" fn(*mut Program) -> Res,
    add_module: unsafe extern "C" fn(Program, *const c_char, usize, *const c_char) -> Res,
    lazy_add_module: unsafe extern "C" fn(Program, *const c_char, usize, *const c_char) -> Res,
    verify_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Res,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Res,
    get_compiled_result_size: unsafe extern "C" fn(Program, *mut usize) -> Res,
    get_compiled_result: unsafe extern "C" fn(Program, *mut c_char) -> Res,
    get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> Res,
    get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> Res,
}

/// A loaded libnvvm plus its libdevice.
pub struct Nvvm {
    api: Api,
    path: PathBuf,
    libdevice_path: PathBuf,
    libdevice: Vec<u8>,
    version: (i32, i32),
    ir_version: (u32, u32, u32, u32),
    // Declared last: dropped after everything that points into it.
    _library: libloading::Library,
}

impl std::fmt::Debug for Nvvm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvvm")
            .field("path", &self.path)
            .field("libdevice_path", &self.libdevice_path)
            .field("version", &self.version)
            .field("ir_version", &self.ir_version)
            .finish()
    }
}

static SHARED: OnceLock<Result<Nvvm, String>> = OnceLock::new();

/// Whether NVVM IR calls a libdevice function: every one is named `__nv_*`, and the
/// writer declares each function it calls.
fn calls_libdevice(nvvm_ir: &str) -> bool {
    nvvm_ir.contains("@__nv_")
}

impl Nvvm {
    /// Finds and loads libnvvm (see the module docs for the search order).
    pub fn load() -> Result<Nvvm, NvvmError> {
        let (candidates, explicit) = search::library_candidates();
        match candidates.iter().find(|p| p.is_file()) {
            Some(path) => Nvvm::load_from(path),
            None if explicit => Err(NvvmError::ExplicitNotFound {
                searched: candidates,
            }),
            None => Err(NvvmError::NotFound {
                searched: candidates,
            }),
        }
    }

    /// The library file [`Nvvm::load`] would load and the libdevice beside it, found
    /// without loading anything (for work that only reads the files, such as hashing
    /// them ahead of the first compile).
    pub fn locate() -> Option<(PathBuf, PathBuf)> {
        let (candidates, _) = search::library_candidates();
        let library = candidates.into_iter().find(|p| p.is_file())?;
        let libdevice = search::libdevice_candidates(&library)
            .into_iter()
            .find(|p| p.is_file())?;
        Some((library, libdevice))
    }

    /// The process-wide instance, loaded on first use. The error is kept as text
    /// (loading is not retried).
    pub fn shared() -> Result<&'static Nvvm, NvvmError> {
        SHARED
            .get_or_init(|| Nvvm::load().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|message| NvvmError::Shared(message.clone()))
    }

    /// Loads libnvvm from `path` and libdevice from beside it.
    pub fn load_from(path: &Path) -> Result<Nvvm, NvvmError> {
        // SAFETY: loading libnvvm runs its initialisers, which have no preconditions.
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| NvvmError::Load {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the type matches the declaration in nvvm.h.
                let s = unsafe { library.get(concat!($name, "\0").as_bytes()) }.map_err(|_| {
                    NvvmError::MissingSymbol {
                        path: path.to_path_buf(),
                        symbol: $name.into(),
                    }
                })?;
                *s
            }};
        }
        let api = Api {
            get_error_string: sym!("nvvmGetErrorString"),
            version: sym!("nvvmVersion"),
            ir_version: sym!("nvvmIRVersion"),
            create_program: sym!("nvvmCreateProgram"),
            destroy_program: sym!("nvvmDestroyProgram"),
            add_module: sym!("nvvmAddModuleToProgram"),
            lazy_add_module: sym!("nvvmLazyAddModuleToProgram"),
            verify_program: sym!("nvvmVerifyProgram"),
            compile_program: sym!("nvvmCompileProgram"),
            get_compiled_result_size: sym!("nvvmGetCompiledResultSize"),
            get_compiled_result: sym!("nvvmGetCompiledResult"),
            get_program_log_size: sym!("nvvmGetProgramLogSize"),
            get_program_log: sym!("nvvmGetProgramLog"),
        };

        let searched = search::libdevice_candidates(path);
        let libdevice_path = searched
            .iter()
            .find(|p| p.is_file())
            .cloned()
            .ok_or_else(|| NvvmError::LibdeviceNotFound {
                library: path.to_path_buf(),
                searched: searched.clone(),
            })?;
        let libdevice = std::fs::read(&libdevice_path).map_err(|e| NvvmError::Io {
            path: libdevice_path.clone(),
            message: e.to_string(),
        })?;

        let mut nvvm = Nvvm {
            api,
            path: path.to_path_buf(),
            libdevice_path,
            libdevice,
            version: (0, 0),
            ir_version: (0, 0, 0, 0),
            _library: library,
        };
        let (mut major, mut minor) = (0, 0);
        // SAFETY: out-pointers to live locals.
        nvvm.check("nvvmVersion", unsafe {
            (nvvm.api.version)(&mut major, &mut minor)
        })?;
        nvvm.version = (major, minor);
        let (mut a, mut b, mut c, mut d) = (0, 0, 0, 0);
        // SAFETY: as above.
        nvvm.check("nvvmIRVersion", unsafe {
            (nvvm.api.ir_version)(&mut a, &mut b, &mut c, &mut d)
        })?;
        nvvm.ir_version = (a as u32, b as u32, c as u32, d as u32);
        Ok(nvvm)
    }

    /// The library file that was loaded.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn libdevice_path(&self) -> &Path {
        &self.libdevice_path
    }

    /// libnvvm's own version (13.0 reports `(2, 0)`: the NVVM version, not CUDA's).
    pub fn version(&self) -> (i32, i32) {
        self.version
    }

    /// The NVVM IR version this libnvvm accepts: `!nvvmir.version`'s four numbers.
    pub fn ir_version(&self) -> (u32, u32, u32, u32) {
        self.ir_version
    }

    fn check(&self, call: &'static str, code: Res) -> Result<(), NvvmError> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: nvvmGetErrorString returns a static string (or null).
        let message = unsafe {
            let p = (self.api.get_error_string)(code);
            if p.is_null() {
                "unknown error".to_string()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        Err(NvvmError::Api {
            call,
            code,
            message,
        })
    }

    /// Compiles one NVVM IR module (text) with libdevice to PTX.
    ///
    /// `nvvmVerifyProgram` runs beside the compile, on a scoped thread with a program of
    /// its own, and its verdict is awaited before any PTX is returned: it only catches
    /// IR that the writer got wrong, but that IR can compile without a word (a shared
    /// variable's initialiser or an unsupported intrinsic is silently dropped), so a
    /// rejection still fails the compile, with the verifier's log. In sequence it cost
    /// a first launch 0.7-1.2 ms on the H200's host (issue 27); beside the compile it
    /// costs a thread's start. The thread never outlives this call: a process that
    /// exits while a thread is inside libnvvm can crash in its static destructors
    /// (`kernel-host`'s `warm_up` says how).
    pub fn compile(&self, nvvm_ir: &str, options: &CompileOptions) -> Result<String, NvvmError> {
        let args: Vec<CString> = options
            .to_args()
            .into_iter()
            .map(|a| {
                CString::new(a).map_err(|_| NvvmError::InvalidInput("NUL in an option".into()))
            })
            .collect::<Result<_, _>>()?;
        std::thread::scope(|scope| {
            let beside = std::thread::Builder::new()
                .name("cudajit-nvvm-verify".into())
                .spawn_scoped(scope, || self.verify(nvvm_ir, &args));
            let compiled = self.compile_unverified(nvvm_ir, &args);
            let verified = match beside {
                Ok(handle) => handle.join().unwrap_or_else(|_| {
                    Err(NvvmError::Verify {
                        log: "the verifier's thread panicked".into(),
                    })
                }),
                // No thread to be had: verified here, after the compile.
                Err(_) => self.verify(nvvm_ir, &args),
            };
            verified.and(compiled)
        })
    }

    /// `nvvmVerifyProgram` on a program holding `nvvm_ir` alone (a program of its own,
    /// never shared between threads).
    fn verify(&self, nvvm_ir: &str, args: &[CString]) -> Result<(), NvvmError> {
        let arg_ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        let program = ProgramGuard::new(self)?;
        let p = program.0;
        // SAFETY: `p` is a live program; buffers outlive the calls (libnvvm copies them).
        unsafe {
            self.add_module(p, nvvm_ir)?;
            let code = (self.api.verify_program)(p, arg_ptrs.len() as c_int, arg_ptrs.as_ptr());
            if code != 0 {
                return Err(NvvmError::Verify {
                    log: self.log(p, code),
                });
            }
        }
        Ok(())
    }

    /// # Safety
    /// `p` is a live program.
    unsafe fn add_module(&self, p: Program, nvvm_ir: &str) -> Result<(), NvvmError> {
        self.check(
            "nvvmAddModuleToProgram",
            (self.api.add_module)(
                p,
                nvvm_ir.as_ptr().cast(),
                nvvm_ir.len(),
                c"cudajit".as_ptr(),
            ),
        )
    }

    /// `nvvm_ir` (with libdevice when it calls it) compiled to PTX, not verified.
    fn compile_unverified(&self, nvvm_ir: &str, args: &[CString]) -> Result<String, NvvmError> {
        let arg_ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        let program = ProgramGuard::new(self)?;
        let p = program.0;
        // SAFETY: `p` is a live program; buffers outlive the calls (libnvvm copies them).
        unsafe {
            self.add_module(p, nvvm_ir)?;
            // libdevice itself is not meant to pass the verifier, which sees the
            // kernel's module alone. Only a module that calls it gets it: even lazily
            // added, libdevice made a small kernel's compile take 15 ms instead of 4
            // (measured on the H100's host).
            if calls_libdevice(nvvm_ir) {
                self.check(
                    "nvvmLazyAddModuleToProgram",
                    (self.api.lazy_add_module)(
                        p,
                        self.libdevice.as_ptr().cast(),
                        self.libdevice.len(),
                        c"libdevice".as_ptr(),
                    ),
                )?;
            }
            let code = (self.api.compile_program)(p, arg_ptrs.len() as c_int, arg_ptrs.as_ptr());
            if code != 0 {
                return Err(NvvmError::Compile {
                    log: self.log(p, code),
                });
            }
            let mut size = 0usize;
            self.check(
                "nvvmGetCompiledResultSize",
                (self.api.get_compiled_result_size)(p, &mut size),
            )?;
            let mut buf = vec![0u8; size.max(1)];
            self.check(
                "nvvmGetCompiledResult",
                (self.api.get_compiled_result)(p, buf.as_mut_ptr().cast()),
            )?;
            let ptx = c_buffer_to_string(buf);
            Ok(match ptx_fixups::fix_narrow_negation(&ptx) {
                std::borrow::Cow::Borrowed(_) => ptx,
                std::borrow::Cow::Owned(fixed) => fixed,
            })
        }
    }

    /// The program log, or the error string when the log is empty.
    unsafe fn log(&self, p: Program, code: Res) -> String {
        let mut size = 0usize;
        let mut text = String::new();
        if (self.api.get_program_log_size)(p, &mut size) == 0 && size > 1 {
            let mut buf = vec![0u8; size];
            if (self.api.get_program_log)(p, buf.as_mut_ptr().cast()) == 0 {
                text = c_buffer_to_string(buf);
            }
        }
        if text.trim().is_empty() {
            text = self
                .check("", code)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
        }
        text
    }
}

fn c_buffer_to_string(mut buf: Vec<u8>) -> String {
    if let Some(end) = buf.iter().position(|&b| b == 0) {
        buf.truncate(end);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Destroys the program on every path out of `compile`.
struct ProgramGuard<'a>(Program, &'a Nvvm);

impl<'a> ProgramGuard<'a> {
    fn new(nvvm: &'a Nvvm) -> Result<Self, NvvmError> {
        let mut p: Program = std::ptr::null_mut();
        // SAFETY: out-pointer to a live local.
        nvvm.check("nvvmCreateProgram", unsafe {
            (nvvm.api.create_program)(&mut p)
        })?;
        Ok(ProgramGuard(p, nvvm))
    }
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: created by nvvmCreateProgram, destroyed once.
        unsafe {
            (self.1.api.destroy_program)(&mut self.0);
        }
    }
}

// SAFETY: the API table holds plain function pointers into the library, which stays
// loaded for the value's lifetime. libnvvm's interface is thread-safe (its API manual,
// "Thread Safety": "clients can take advantage of improved compilation speeds by
// spawning multiple compilation threads concurrently"), and every call here uses a
// program of its own, never shared between threads: compiles run at once (kernels
// compiled while a GPU opens, launches on several threads), as a compile and its
// verification always have.
unsafe impl Send for Nvvm {}
unsafe impl Sync for Nvvm {}

/// For tests: libnvvm loaded from `CUDAJIT_NVVM_PATH` and the path of `CUDAJIT_PTXAS`,
/// or `None` after saying on stderr why the test that asked is skipped.
#[cfg(test)]
pub(crate) fn test_toolchain() -> Option<(Nvvm, std::path::PathBuf)> {
    let (Some(lib), Some(ptxas)) = (
        std::env::var_os("CUDAJIT_NVVM_PATH"),
        std::env::var_os("CUDAJIT_PTXAS"),
    ) else {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: libnvvm/ptxas: CUDAJIT_NVVM_PATH or CUDAJIT_PTXAS not set"
        );
        return None;
    };
    let nvvm = Nvvm::load_from(std::path::Path::new(&lib)).expect("load libnvvm");
    Some((nvvm, ptxas.into()))
}

#[cfg(test)]
mod tests;
