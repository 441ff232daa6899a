//! Kernels written by the runtime: the text of a reduction, scan or map kernel that
//! calls the user's `#[device]` functions by name, turned into a [`FnSource`] whose
//! `deps` are those functions' own sources, so that the ordinary pipeline (frontend,
//! validator, NVVM or the simulator) compiles it like a kernel the macro embedded.
//!
//! Each distinct text is leaked once, with its own [`KernelCache`], and kept for the
//! process: the key is the text itself plus the addresses of the dependencies (two
//! device functions of one name in different modules are different kernels).

use std::collections::HashMap;
use std::sync::Mutex;

use kernel_device::source::{FnSource, SourceKind, StructItem};

use crate::compile::cache::KernelCache;

/// Threads per block of every synthesized kernel; the block-wide trees and scans in
/// their texts are written for exactly this many.
pub(crate) const BLOCK: u32 = 256;

type Key = (String, Vec<usize>);

static KERNELS: Mutex<Option<HashMap<Key, Kernel>>> = Mutex::new(None);

/// A synthesized kernel: its source and its per-device module cache.
#[derive(Clone, Copy)]
pub(crate) struct Kernel {
    pub source: &'static FnSource,
    pub cache: &'static KernelCache,
}

/// The kernel `name` with text `text` calling `deps`, made on first use.
pub(crate) fn kernel(name: &str, text: String, deps: &[&'static FnSource]) -> Kernel {
    kernel_with_bounds(name, text, deps, None)
}

/// [`kernel`] with launch bounds: ptxas fits the registers to `min_blocks` resident
/// blocks of [`BLOCK`] threads per multiprocessor.
pub(crate) fn kernel_with_bounds(
    name: &str,
    text: String,
    deps: &[&'static FnSource],
    min_blocks: Option<u32>,
) -> Kernel {
    kernel_of(name, text, deps, min_blocks, &[])
}

/// [`kernel_with_bounds`] whose text also names the `#[derive(DeviceCopy)]` structs
/// `structs` (items copied from the user's sources).
pub(crate) fn kernel_of(
    name: &str,
    text: String,
    deps: &[&'static FnSource],
    min_blocks: Option<u32>,
    structs: &'static [StructItem],
) -> Kernel {
    let key: Key = (
        text,
        deps.iter()
            .map(|d| *d as *const FnSource as usize)
            .collect(),
    );
    let mut table = KERNELS.lock().unwrap_or_else(|p| p.into_inner());
    let table = table.get_or_insert_with(HashMap::new);
    if let Some(found) = table.get(&key) {
        return *found;
    }
    // Leaked on purpose: a kernel lives as long as the process, like the statics the
    // macro emits for written kernels.
    let source: &'static FnSource = Box::leak(Box::new(FnSource {
        name: Box::leak(name.to_owned().into_boxed_str()),
        kind: SourceKind::Kernel,
        text: Box::leak(key.0.clone().into_boxed_str()),
        file: "<cudajit high-level kernel>",
        line: 1,
        // The texts index only inside their bounds; checks would cost bandwidth.
        options: kernel_device::ir::FunctionOptions {
            bounds_check: false,
            launch_bounds: min_blocks.map(|min_blocks| kernel_device::ir::LaunchBounds {
                max_threads: BLOCK,
                min_blocks,
                block_dim: None,
            }),
            ..kernel_device::ir::FunctionOptions::DEFAULT
        },
        deps: Box::leak(deps.to_vec().into_boxed_slice()),
        consts: &[],
        instance: &[],
        structs,
    }));
    let made = Kernel {
        source,
        cache: Box::leak(Box::new(KernelCache::new())),
    };
    table.insert(key, made);
    made
}

/// A device function written by the runtime (the built-in `+`, `*`, `min`, `max`),
/// leaked once per text.
pub(crate) fn device_fn(name: &str, text: String) -> &'static FnSource {
    static FNS: Mutex<Option<HashMap<String, &'static FnSource>>> = Mutex::new(None);
    let mut table = FNS.lock().unwrap_or_else(|p| p.into_inner());
    let table = table.get_or_insert_with(HashMap::new);
    if let Some(found) = table.get(&text) {
        return found;
    }
    let source: &'static FnSource = Box::leak(Box::new(FnSource {
        name: Box::leak(name.to_owned().into_boxed_str()),
        kind: SourceKind::Device,
        text: Box::leak(text.clone().into_boxed_str()),
        file: "<cudajit built-in operator>",
        line: 1,
        options: kernel_device::ir::FunctionOptions::DEFAULT,
        deps: &[],
        consts: &[],
        instance: &[],
        structs: &[],
    }));
    table.insert(text, source);
    source
}

/// A block-wide inclusive scan of `cj_v` (one value per thread of a [`BLOCK`]-thread
/// block) through `cj_sm`, in order (the operator need not commute): afterwards
/// `cj_v` is the thread's inclusive prefix, `cj_excl` its exclusive prefix (the
/// identity for thread 0) and `cj_total` the block's total. Hillis-Steele in shared
/// memory, so that it works for every element type (shuffles move 32/64-bit words only).
pub(crate) fn block_scan(op: &str) -> String {
    format!(
        "
    cj_sm[cj_tid] = cj_v;
    sync_threads();
    let mut cj_d = 1usize;
    while cj_d < {BLOCK} {{
        let cj_left = if cj_tid >= cj_d {{ cj_sm[cj_tid - cj_d] }} else {{ cj_v }};
        sync_threads();
        if cj_tid >= cj_d {{
            cj_v = {op}(cj_left, cj_v);
            cj_sm[cj_tid] = cj_v;
        }}
        sync_threads();
        cj_d <<= 1;
    }}
    let cj_excl = if cj_tid > 0 {{ cj_sm[cj_tid - 1] }} else {{ cj_identity }};
    let cj_total = cj_sm[{last}];
    sync_threads();
",
        last = BLOCK - 1
    )
}

/// How a written kernel calls `f` on elements of type `elem`: by name, or for a generic
/// `#[device]` function (`fn plus<T: Num>(a: T, b: T) -> T`) instantiated at `elem`,
/// since cudajit instantiates device functions by the arguments named at the call.
pub(crate) fn callee(f: &FnSource, elem: &str) -> String {
    let generic = f
        .text
        .split_once(&format!("fn {}", f.name))
        .is_some_and(|(_, rest)| rest.trim_start().starts_with('<'));
    if generic {
        format!("{}::<{elem}>", f.name)
    } else {
        f.name.to_string()
    }
}
