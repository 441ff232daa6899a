//! NCCL, loaded at run time like the driver: a machine without NCCL builds and runs
//! every single-GPU program, and only creating a communicator says that NCCL is
//! missing (an `Err` naming the places searched).
//!
//! The C types are cudarc's (`cudarc::nccl::sys`). The functions are looked up here
//! rather than through cudarc's loader because that loader only tries names such as
//! `libnccl.so` and `libnccl.so.13`, while every NCCL install (the pip wheel PyTorch
//! uses included) provides `libnccl.so.2`, its soname; and it panics on a miss.
//! Search order: `$CUDAJIT_NCCL_PATH` (the library or its directory), the dynamic
//! loader's path (`libnccl.so.2`, `libnccl.so`), then the `nvidia-nccl` wheels of the
//! Python environments on the machine.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cudarc::driver::sys::CUstream;
pub(crate) use cudarc::nccl::sys::{
    ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t, ncclUniqueId,
};

use crate::error::{Error, Result};

/// The environment variable naming the NCCL library (or its directory).
pub const NCCL_PATH_VARIABLE: &str = "CUDAJIT_NCCL_PATH";

type Stream = CUstream;

/// The NCCL entry points cudajit calls.
pub(crate) struct Nccl {
    pub(crate) version: c_int,
    pub(crate) get_unique_id: unsafe extern "C" fn(*mut ncclUniqueId) -> ncclResult_t,
    pub(crate) comm_init_rank:
        unsafe extern "C" fn(*mut ncclComm_t, c_int, ncclUniqueId, c_int) -> ncclResult_t,
    pub(crate) comm_init_all:
        unsafe extern "C" fn(*mut ncclComm_t, c_int, *const c_int) -> ncclResult_t,
    pub(crate) comm_destroy: unsafe extern "C" fn(ncclComm_t) -> ncclResult_t,
    pub(crate) all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        ncclComm_t,
        Stream,
    ) -> ncclResult_t,
    pub(crate) reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        c_int,
        ncclComm_t,
        Stream,
    ) -> ncclResult_t,
    pub(crate) broadcast: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        Stream,
    ) -> ncclResult_t,
    pub(crate) all_gather: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclComm_t,
        Stream,
    ) -> ncclResult_t,
    pub(crate) reduce_scatter: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        ncclComm_t,
        Stream,
    ) -> ncclResult_t,
    pub(crate) send: unsafe extern "C" fn(
        *const c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        Stream,
    ) -> ncclResult_t,
    pub(crate) recv: unsafe extern "C" fn(
        *mut c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        Stream,
    ) -> ncclResult_t,
    pub(crate) group_start: unsafe extern "C" fn() -> ncclResult_t,
    pub(crate) group_end: unsafe extern "C" fn() -> ncclResult_t,
    error_string: unsafe extern "C" fn(ncclResult_t) -> *const c_char,
}

/// NCCL, loaded once per process (`Err` with the places searched when it is missing).
pub(crate) fn nccl() -> Result<&'static Nccl> {
    static NCCL: OnceLock<std::result::Result<Nccl, String>> = OnceLock::new();
    NCCL.get_or_init(load)
        .as_ref()
        .map_err(|reason| Error::Refused {
            operation: "NCCL",
            detail: reason.clone(),
        })
}

impl Nccl {
    /// `Ok` for `ncclSuccess`, else an error naming `call` and NCCL's reason.
    pub(crate) fn check(&self, call: &'static str, result: ncclResult_t) -> Result<()> {
        if result == ncclResult_t::ncclSuccess {
            return Ok(());
        }
        // SAFETY: NCCL returns a static NUL-terminated string for every result code.
        let text = unsafe { CStr::from_ptr((self.error_string)(result)) };
        Err(Error::Refused {
            operation: call,
            detail: format!("NCCL failed: {} ({result:?})", text.to_string_lossy()),
        })
    }
}

fn load() -> std::result::Result<Nccl, String> {
    let mut tried = Vec::new();
    for candidate in candidates() {
        // SAFETY: loading NCCL runs its initialisers, which only register itself.
        match unsafe { libloading::Library::new(&candidate) } {
            Ok(library) => return bind(library, &candidate),
            Err(_) => tried.push(candidate.display().to_string()),
        }
    }
    Err(format!(
        "the NCCL library was not found (tried {}); install it (`pip install \
         nvidia-nccl-cu13`, or the system's libnccl2 package) or set {NCCL_PATH_VARIABLE} \
         to the library's path",
        tried.join(", ")
    ))
}

/// Where NCCL may be, in search order.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(path) = std::env::var_os(NCCL_PATH_VARIABLE).map(PathBuf::from) {
        if path.is_dir() {
            out.push(path.join("libnccl.so.2"));
        } else {
            out.push(path);
        }
    }
    out.push("libnccl.so.2".into());
    out.push("libnccl.so".into());
    // nvidia-nccl-cu12 puts the library in nvidia/nccl/lib, the CUDA 13 wheels in
    // nvidia/cu13/lib.
    for site in python_site_dirs() {
        for folder in ["nvidia/nccl/lib", "nvidia/cu13/lib", "nvidia/cu12/lib"] {
            let wheel = site.join(folder).join("libnccl.so.2");
            if wheel.exists() {
                out.push(wheel);
            }
        }
    }
    out
}

/// `site-packages`/`dist-packages` of the usual Python environments.
fn python_site_dirs() -> Vec<PathBuf> {
    let mut prefixes: Vec<PathBuf> = ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(PathBuf::from))
        .collect();
    prefixes.extend(["/usr", "/usr/local", "/opt/conda"].map(PathBuf::from));
    if let Some(home) = std::env::var_os("HOME") {
        prefixes.push(Path::new(&home).join(".local"));
    }
    let mut out = python_reported_site_dirs();
    for lib in prefixes
        .iter()
        .flat_map(|p| [p.join("lib"), p.join("lib64")])
    {
        let Ok(entries) = std::fs::read_dir(&lib) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with("python3") {
                out.push(entry.path().join("site-packages"));
                out.push(entry.path().join("dist-packages"));
            }
        }
    }
    out
}

/// The site folders `python3` on the PATH reports (an environment in a place the
/// fixed list misses); empty when there is no Python. Asked only while looking for
/// NCCL, once per process.
fn python_reported_site_dirs() -> Vec<PathBuf> {
    let script =
        "import site; print('\\n'.join(site.getsitepackages() + [site.getusersitepackages()]))";
    std::process::Command::new("python3")
        .args(["-c", script])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default()
}

fn bind(library: libloading::Library, path: &Path) -> std::result::Result<Nccl, String> {
    // The library stays loaded for the process: communicators and their proxy threads
    // live as long as it does.
    let library: &'static libloading::Library = Box::leak(Box::new(library));
    macro_rules! symbol {
        ($name:literal) => {
            // SAFETY: the type is the function's C signature from NCCL's header (as
            // cudarc's bindings declare it).
            *unsafe { library.get(concat!($name, "\0").as_bytes()) }.map_err(|e| {
                format!(
                    "{} lacks `{}` ({e}); cudajit needs NCCL 2.18 or newer",
                    path.display(),
                    $name
                )
            })?
        };
    }
    let get_version: unsafe extern "C" fn(*mut c_int) -> ncclResult_t = symbol!("ncclGetVersion");
    let mut version = 0;
    // SAFETY: writes one int.
    unsafe { get_version(&mut version) };
    Ok(Nccl {
        version,
        get_unique_id: symbol!("ncclGetUniqueId"),
        comm_init_rank: symbol!("ncclCommInitRank"),
        comm_init_all: symbol!("ncclCommInitAll"),
        comm_destroy: symbol!("ncclCommDestroy"),
        all_reduce: symbol!("ncclAllReduce"),
        reduce: symbol!("ncclReduce"),
        broadcast: symbol!("ncclBroadcast"),
        all_gather: symbol!("ncclAllGather"),
        reduce_scatter: symbol!("ncclReduceScatter"),
        send: symbol!("ncclSend"),
        recv: symbol!("ncclRecv"),
        group_start: symbol!("ncclGroupStart"),
        group_end: symbol!("ncclGroupEnd"),
        error_string: symbol!("ncclGetErrorString"),
    })
}
