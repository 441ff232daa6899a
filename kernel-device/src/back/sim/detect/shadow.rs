//! Shadow memory: per element, who wrote it last and who read it since, as [`Stamp`]s
//! checked against the block's clock.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::ir::{MemoryScope, SourceLoc};

use super::super::fault::AccessKind;
use super::site::SiteId;

const VALID: u16 = 1;
const WRITE: u16 = 2;
const ATOMIC: u16 = 4;
const BLOCK_SCOPE: u16 = 8;
/// The site's function index lives in the flags' upper bits.
const FUNC_SHIFT: u32 = 4;
const FUNC_MAX: u32 = (1 << (16 - FUNC_SHIFT)) - 1;
const COLUMN_BITS: u32 = 12;
const COLUMN_MAX: u32 = (1 << COLUMN_BITS) - 1;
const LINE_MAX: u32 = (1 << (32 - COLUMN_BITS)) - 1;

/// One access: thread, time on its block's clock, site and kind, in 16 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Stamp {
    pub(super) block: u32,
    pub(super) time: u32,
    /// Line and column of the site (see `FUNC_SHIFT` for its function).
    site: u32,
    /// Linear thread index in the block (at most 1024).
    pub(super) tid: u16,
    flags: u16,
}

impl Stamp {
    const NONE: Stamp = Stamp {
        block: 0,
        time: 0,
        site: 0,
        tid: 0,
        flags: 0,
    };

    pub(super) fn new(
        block: u32,
        tid: u32,
        time: u32,
        site: SiteId,
        kind: AccessKind,
        scope: MemoryScope,
    ) -> Stamp {
        let flags = VALID
            | match kind {
                AccessKind::Read => 0,
                AccessKind::Write => WRITE,
                AccessKind::Atomic if scope == MemoryScope::Block => ATOMIC | BLOCK_SCOPE,
                AccessKind::Atomic => ATOMIC,
            };
        let line = site.loc.line.min(LINE_MAX);
        let column = site.loc.column.min(COLUMN_MAX);
        Stamp {
            block,
            time,
            site: line << COLUMN_BITS | column,
            tid: tid as u16,
            flags: flags | (site.func.min(FUNC_MAX) as u16) << FUNC_SHIFT,
        }
    }

    /// The same access by thread `tid` of the block (a warp's lanes share the rest).
    pub(super) fn with_tid(self, tid: u32) -> Stamp {
        Stamp {
            tid: tid as u16,
            ..self
        }
    }

    pub(super) fn site(&self) -> SiteId {
        SiteId {
            func: u32::from(self.flags >> FUNC_SHIFT),
            loc: SourceLoc {
                line: self.site >> COLUMN_BITS,
                column: self.site & COLUMN_MAX,
            },
        }
    }

    fn valid(&self) -> bool {
        self.flags & VALID != 0
    }

    fn writes(&self) -> bool {
        self.flags & (WRITE | ATOMIC) != 0
    }

    fn atomic(&self) -> bool {
        self.flags & ATOMIC != 0
    }

    pub(super) fn kind(&self) -> AccessKind {
        if self.atomic() {
            AccessKind::Atomic
        } else if self.flags & WRITE != 0 {
            AccessKind::Write
        } else {
            AccessKind::Read
        }
    }

    fn same_thread(&self, other: &Stamp) -> bool {
        self.block == other.block && self.tid == other.tid
    }

    /// Whether `self` (earlier) and `other` would race if unordered.
    fn conflicts_with(&self, other: &Stamp) -> bool {
        if !self.valid() || self.same_thread(other) || !(self.writes() || other.writes()) {
            return false;
        }
        let atomics_agree = self.atomic()
            && other.atomic()
            && (self.block == other.block || (self.flags | other.flags) & BLOCK_SCOPE == 0);
        !atomics_agree
    }
}

/// An earlier access the new one races with.
#[derive(Debug)]
pub(super) struct Conflict {
    pub(super) prior: Stamp,
}

/// The shadow of one element: the last write and the last two reads since it by
/// distinct threads not ordered one after the other.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cell {
    write: Stamp,
    reads: [Stamp; 2],
}

impl Cell {
    pub(super) const EMPTY: Cell = Cell {
        write: Stamp::NONE,
        reads: [Stamp::NONE; 2],
    };

    /// Shared memory: stamps of another block are from an earlier block's instance.
    pub(super) fn forget_other_blocks(&mut self, block: u32) {
        if self.write.valid() && self.write.block != block {
            self.write = Stamp::NONE;
        }
        for r in &mut self.reads {
            if r.valid() && r.block != block {
                *r = Stamp::NONE;
            }
        }
    }

    pub(super) fn written(&self) -> bool {
        self.write.valid()
    }

    // Hopper: clusters
    /// Written by a peer block of the cluster (whose ordering `back::sim::cluster`
    /// checks): `stamp` stands for that write.
    pub(super) fn written_by_peer(&mut self, stamp: Stamp) {
        self.write = stamp;
    }

    /// Checks `access` against the earlier ones (`ordered(p)`: whether `p` happens
    /// before it), then records it.
    pub(super) fn record(
        &mut self,
        access: Stamp,
        ordered: impl Fn(&Stamp) -> bool,
    ) -> Result<(), Conflict> {
        record(&mut self.write, &mut self.reads, access, ordered)
    }
}

/// The rule of [`Cell::record`], on a cell's parts wherever they are stored.
fn record(
    write: &mut Stamp,
    reads: &mut [Stamp; 2],
    access: Stamp,
    ordered: impl Fn(&Stamp) -> bool,
) -> Result<(), Conflict> {
    if write.conflicts_with(&access) && !ordered(write) {
        return Err(Conflict { prior: *write });
    }
    if access.writes() {
        if let Some(r) = reads
            .iter()
            .find(|r| r.conflicts_with(&access) && !ordered(r))
        {
            return Err(Conflict { prior: *r });
        }
        // A thread's own atomic after its plain store must not hide the store:
        // other threads' atomics still race with it.
        let plain_store_kept =
            access.atomic() && write.valid() && !write.atomic() && write.same_thread(&access);
        if !plain_store_kept {
            *write = access;
        }
        *reads = [Stamp::NONE; 2];
        return Ok(());
    }
    for r in reads.iter_mut() {
        if r.valid() && (r.same_thread(&access) || ordered(r)) {
            *r = Stamp::NONE;
        }
    }
    if !reads[0].valid() {
        reads[0] = access;
    } else if !reads[1].valid() {
        reads[1] = access;
    } else {
        *reads = [reads[1], access];
    }
    Ok(())
}

const CHUNK: usize = 64;
/// Chunks are allocated `SLAB` at a time (one allocation per 1024 cells rather than
/// per 64), each chunk still behind its own lock.
const SLAB: usize = 16;

/// The shadow of [`CHUNK`] consecutive elements of a global region, as [`Cell`]s
/// stored apart: the writes always, the reads only once one of the chunk's elements is
/// read, so a region that threads only write (a kernel's output) costs 16 bytes per
/// element rather than 48.
pub(super) struct Chunk {
    writes: [Stamp; CHUNK],
    reads: Option<Box<[[Stamp; 2]; CHUNK]>>,
}

impl Chunk {
    const EMPTY: Chunk = Chunk {
        writes: [Stamp::NONE; CHUNK],
        reads: None,
    };

    fn clear(&mut self) {
        self.writes = [Stamp::NONE; CHUNK];
        if let Some(reads) = &mut self.reads {
            **reads = [[Stamp::NONE; 2]; CHUNK];
        }
    }

    /// [`Cell::record`] for element `slot` of the chunk.
    pub(super) fn record(
        &mut self,
        slot: usize,
        access: Stamp,
        ordered: impl Fn(&Stamp) -> bool,
    ) -> Result<(), Conflict> {
        if access.writes() && self.reads.is_none() {
            // No element read yet: nothing for the write to clear.
            return record(
                &mut self.writes[slot],
                &mut [Stamp::NONE; 2],
                access,
                ordered,
            );
        }
        let reads = self
            .reads
            .get_or_insert_with(|| Box::new([[Stamp::NONE; 2]; CHUNK]));
        record(&mut self.writes[slot], &mut reads[slot], access, ordered)
    }
}

pub(super) type ChunkGuard<'a> = std::sync::MutexGuard<'a, Chunk>;

/// `SLAB` chunks, allocated together on first use.
type Slab = OnceLock<Box<[Mutex<Chunk>]>>;

/// A tracked global region's shadow, in lazily allocated slabs of chunks, each chunk
/// behind its own lock: blocks on different workers touch different chunks, so locks
/// stay uncontended.
pub(super) struct GlobalShadow {
    slabs: Box<[Slab]>,
    chunks: u64,
}

impl GlobalShadow {
    pub(super) fn new(cells: u64) -> GlobalShadow {
        let chunks = cells.div_ceil(CHUNK as u64);
        let slabs = (0..chunks.div_ceil(SLAB as u64))
            .map(|_| OnceLock::new())
            .collect();
        GlobalShadow { slabs, chunks }
    }

    /// Forgets every access (a new schedule of the launch starts fresh).
    pub(super) fn clear(&self) {
        for slab in self.slabs.iter().filter_map(OnceLock::get) {
            for chunk in slab.iter() {
                chunk.lock().unwrap_or_else(|e| e.into_inner()).clear();
            }
        }
    }

    /// The chunk holding `cell`, and the cell's index in it.
    pub(super) fn split(cell: u64) -> (u64, usize) {
        (cell / CHUNK as u64, (cell % CHUNK as u64) as usize)
    }

    /// Locks chunk `chunk` (allocating its slab on first use); `None` past the end.
    pub(super) fn lock(&self, chunk: u64) -> Option<ChunkGuard<'_>> {
        if chunk >= self.chunks {
            return None;
        }
        let chunk = usize::try_from(chunk).ok()?;
        let slab = self
            .slabs
            .get(chunk / SLAB)?
            .get_or_init(|| (0..SLAB).map(|_| Mutex::new(Chunk::EMPTY)).collect());
        Some(slab[chunk % SLAB].lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Per global atomic location used to release: the vector clock (block -> time) of
/// what releasing atomics published there.
#[derive(Debug, Default)]
pub(super) struct SyncVars {
    vars: Mutex<HashMap<(u32, u64), HashMap<u32, u32>>>,
}

impl SyncVars {
    pub(super) fn clear(&self) {
        self.vars.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    pub(super) fn acquire(&self, key: (u32, u64), into: &mut HashMap<u32, u32>) {
        let vars = self.vars.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(vc) = vars.get(&key) {
            join(into, vc);
        }
    }

    pub(super) fn release(
        &self,
        key: (u32, u64),
        block: u32,
        time: u32,
        acquired: &HashMap<u32, u32>,
    ) {
        let mut vars = self.vars.lock().unwrap_or_else(|e| e.into_inner());
        let vc = vars.entry(key).or_default();
        join(vc, acquired);
        let own = vc.entry(block).or_insert(0);
        *own = (*own).max(time);
    }
}

fn join(into: &mut HashMap<u32, u32>, from: &HashMap<u32, u32>) {
    for (&block, &time) in from {
        let t = into.entry(block).or_insert(0);
        *t = (*t).max(time);
    }
}
