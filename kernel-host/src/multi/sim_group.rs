//! The simulator's collectives: ranks of one process (threads, or one thread through
//! `Communicators`) deposit their part of each collective in order; the part that
//! completes a collective performs it on the host, element by element in rank order
//! (reductions of `f16`/`bf16` round after every step, as a ring of 16-bit partial
//! sums does). A rank calling alone waits for the others, with a time limit instead of
//! a hang, and ranks that call different collectives get an `Err` naming both.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use half::{bf16, f16};
use kernel_device::back::sim::Buffer;
use kernel_device::ir::ScalarType;

use super::op::{Op, ReduceOp};
use crate::error::{Error, Result};

/// How long a rank waits for the others before its call fails.
const WAIT_LIMIT: Duration = Duration::from_secs(30);

/// One rank's part of a collective.
pub(crate) struct SimPart {
    pub(crate) op: Op,
    pub(crate) rank: usize,
    pub(crate) elem: ScalarType,
    /// The bytes the rank contributes (its receive buffer's for in-place calls).
    pub(crate) send: Vec<u8>,
    pub(crate) recv: Option<Arc<Buffer>>,
}

/// The ranks of one simulated communicator.
pub(crate) struct SimGroup {
    size: usize,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    joined: Vec<bool>,
    /// Collectives each rank has deposited.
    issued: Vec<u64>,
    /// Collectives not every rank has joined yet, by sequence number.
    pending: HashMap<u64, Vec<SimPart>>,
    /// Collectives completed (they complete in sequence order).
    completed: u64,
    /// Sends not yet received, per (sender, receiver).
    mail: HashMap<(usize, usize), VecDeque<Vec<u8>>>,
    /// Receives posted before their send arrived, per (sender, receiver).
    waiting: HashMap<(usize, usize), VecDeque<Arc<Buffer>>>,
    /// Receives completed and posted, per (sender, receiver).
    received: HashMap<(usize, usize), (u64, u64)>,
    /// Why the group can no longer complete collectives (ranks called different
    /// ones): every waiting and later call fails with it.
    broken: Option<Error>,
}

/// What a rank waits for after depositing.
pub(crate) enum Ticket {
    Collective(u64),
    Recv((usize, usize), u64),
    Nothing,
}

static GROUPS: Mutex<Option<HashMap<[u8; 128], Weak<SimGroup>>>> = Mutex::new(None);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
const ID_MARK: &[u8; 16] = b"cudajit-sim-comm";

impl SimGroup {
    /// A fresh id's bytes (`UniqueId::simulated`).
    pub(crate) fn new_id() -> [u8; 128] {
        let mut bytes = [0u8; 128];
        bytes[..16].copy_from_slice(ID_MARK);
        bytes[16..24].copy_from_slice(&NEXT_ID.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        bytes[24..28].copy_from_slice(&std::process::id().to_le_bytes());
        bytes
    }

    /// Rank `rank` of `size` joins the group `id` names (made by its first member).
    pub(crate) fn join(id: &[u8; 128], rank: usize, size: usize) -> Result<Arc<SimGroup>> {
        let key = *id;
        let refuse = |detail: String| Error::Refused {
            operation: "Communicator::join",
            detail,
        };
        if &key[..16] != ID_MARK {
            return Err(refuse(
                "the id is not a simulated communicator's (make it with `UniqueId::simulated()`)"
                    .into(),
            ));
        }
        let mut groups = GROUPS.lock().unwrap_or_else(|p| p.into_inner());
        let groups = groups.get_or_insert_with(HashMap::new);
        groups.retain(|_, g| g.strong_count() > 0);
        let group = match groups.get(&key).and_then(Weak::upgrade) {
            Some(group) => group,
            None => {
                let group = Arc::new(SimGroup {
                    size,
                    state: Mutex::new(State {
                        joined: vec![false; size],
                        issued: vec![0; size],
                        ..State::default()
                    }),
                    changed: Condvar::new(),
                });
                groups.insert(key, Arc::downgrade(&group));
                group
            }
        };
        if group.size != size {
            return Err(refuse(format!(
                "rank {rank} joins with {size} ranks, but the communicator has {}",
                group.size
            )));
        }
        let mut state = group.lock();
        if std::mem::replace(&mut state.joined[rank], true) {
            return Err(refuse(format!(
                "rank {rank} has already joined this communicator"
            )));
        }
        drop(state);
        Ok(group)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds `rank`'s part; performs the collective when it is the last part.
    pub(crate) fn deposit(&self, rank: usize, part: SimPart) -> Result<Ticket> {
        let mut state = self.lock();
        if let Some(error) = &state.broken {
            return Err(error.clone());
        }
        let ticket = match part.op {
            Op::Send(peer) => {
                let pair = (rank, peer);
                match state.waiting.get_mut(&pair).and_then(VecDeque::pop_front) {
                    Some(buffer) => {
                        deliver(&buffer, &part.send, part.op)?;
                        state.received.entry(pair).or_default().0 += 1;
                    }
                    None => state.mail.entry(pair).or_default().push_back(part.send),
                }
                Ticket::Nothing
            }
            Op::Recv(peer) => {
                let pair = (peer, rank);
                let buffer = part.recv.expect("a recv has a buffer");
                let posted = {
                    let counts = state.received.entry(pair).or_default();
                    counts.1 += 1;
                    counts.1
                };
                match state.mail.get_mut(&pair).and_then(VecDeque::pop_front) {
                    Some(bytes) => {
                        deliver(&buffer, &bytes, part.op)?;
                        state.received.entry(pair).or_default().0 += 1;
                    }
                    None => state.waiting.entry(pair).or_default().push_back(buffer),
                }
                Ticket::Recv(pair, posted)
            }
            _ => {
                let seq = state.issued[rank];
                state.issued[rank] += 1;
                let parts = state.pending.entry(seq).or_default();
                if let Some(first) = parts.first() {
                    if first.op != part.op
                        || first.elem != part.elem
                        || first.send.len() != part.send.len()
                    {
                        let error = Error::Refused {
                            operation: part.op.name(),
                            detail: format!(
                                "collective #{seq}: rank {rank} calls {:?} on {} bytes of `{}`, but rank {} called {:?} on {} bytes of `{}`",
                                part.op, part.send.len(), part.elem, first.rank, first.op, first.send.len(), first.elem
                            ),
                        };
                        state.broken = Some(error.clone());
                        drop(state);
                        self.changed.notify_all();
                        return Err(error);
                    }
                }
                parts.push(part);
                if parts.len() == self.size {
                    let mut parts = state.pending.remove(&seq).unwrap_or_default();
                    parts.sort_by_key(|p| p.rank);
                    perform(&parts, self.size)?;
                    state.completed += 1;
                }
                Ticket::Collective(seq)
            }
        };
        drop(state);
        self.changed.notify_all();
        Ok(ticket)
    }

    /// Waits until `ticket`'s operation is complete (the other ranks have called).
    pub(crate) fn wait(&self, ticket: Ticket, op: Op) -> Result<()> {
        let done = |state: &State| match ticket {
            Ticket::Collective(seq) => state.completed > seq,
            Ticket::Recv(pair, posted) => state.received.get(&pair).is_some_and(|c| c.0 >= posted),
            Ticket::Nothing => true,
        };
        let deadline = Instant::now() + WAIT_LIMIT;
        let mut state = self.lock();
        while !done(&state) {
            if let Some(error) = &state.broken {
                return Err(error.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::Refused {
                    operation: op.name(),
                    detail: format!(
                        "waited {} s for the other ranks of the simulated communicator; call \
                         every rank's part from its own thread, or use `Communicators` to \
                         call all ranks at once",
                        WAIT_LIMIT.as_secs()
                    ),
                });
            }
            state = self
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        Ok(())
    }
}

fn deliver(buffer: &Buffer, bytes: &[u8], op: Op) -> Result<()> {
    if buffer.len() != bytes.len() {
        return Err(Error::Refused {
            operation: op.name(),
            detail: format!(
                "sent {} bytes into a receive buffer of {}",
                bytes.len(),
                buffer.len()
            ),
        });
    }
    buffer.write(0, bytes);
    Ok(())
}

/// Performs a complete collective (`parts` in rank order).
fn perform(parts: &[SimPart], size: usize) -> Result<()> {
    let elem = parts[0].elem;
    let fold = |op: ReduceOp| -> Vec<u8> {
        let mut acc = parts[0].send.clone();
        for part in &parts[1..] {
            combine(elem, op, &mut acc, &part.send);
        }
        if op == ReduceOp::Avg {
            divide(elem, &mut acc, size);
        }
        acc
    };
    let write = |part: &SimPart, bytes: &[u8]| match &part.recv {
        Some(buffer) => deliver(buffer, bytes, part.op),
        None => Ok(()),
    };
    match parts[0].op {
        Op::AllReduce(op) => {
            let result = fold(op);
            parts.iter().try_for_each(|p| write(p, &result))
        }
        Op::Reduce(op, root) => write(&parts[root], &fold(op)),
        Op::Broadcast(root) => parts.iter().try_for_each(|p| write(p, &parts[root].send)),
        Op::AllGather => {
            let all: Vec<u8> = parts.iter().flat_map(|p| p.send.iter().copied()).collect();
            parts.iter().try_for_each(|p| write(p, &all))
        }
        Op::ReduceScatter(op) => {
            let result = fold(op);
            let block = result.len() / size;
            parts
                .iter()
                .try_for_each(|p| write(p, &result[p.rank * block..(p.rank + 1) * block]))
        }
        Op::Send(_) | Op::Recv(_) => unreachable!("point-to-point is matched in `deposit`"),
    }
}

/// `acc[i] = op(acc[i], x[i])` for every element of type `elem`.
fn combine(elem: ScalarType, op: ReduceOp, acc: &mut [u8], x: &[u8]) {
    macro_rules! each {
        ($t:ty, $to:expr, $from:expr) => {{
            const W: usize = std::mem::size_of::<$t>();
            for (a, b) in acc.chunks_exact_mut(W).zip(x.chunks_exact(W)) {
                let (p, q) = (
                    $to(<$t>::from_le_bytes(a.try_into().unwrap())),
                    $to(<$t>::from_le_bytes(b.try_into().unwrap())),
                );
                let r = match op {
                    ReduceOp::Sum | ReduceOp::Avg => p + q,
                    ReduceOp::Prod => p * q,
                    ReduceOp::Min => {
                        if q < p {
                            q
                        } else {
                            p
                        }
                    }
                    ReduceOp::Max => {
                        if q > p {
                            q
                        } else {
                            p
                        }
                    }
                };
                a.copy_from_slice(&$from(r).to_le_bytes());
            }
        }};
    }
    macro_rules! int {
        ($t:ty) => {
            each!(
                $t,
                |v: $t| std::num::Wrapping(v),
                |v: std::num::Wrapping<$t>| v.0
            )
        };
    }
    match elem {
        ScalarType::I8 => int!(i8),
        ScalarType::U8 => int!(u8),
        ScalarType::I32 => int!(i32),
        ScalarType::U32 => int!(u32),
        ScalarType::I64 | ScalarType::Isize => int!(i64),
        ScalarType::U64 | ScalarType::Usize => int!(u64),
        ScalarType::F32 => each!(f32, |v| v, |v| v),
        ScalarType::F64 => each!(f64, |v| v, |v| v),
        ScalarType::F16 => each!(u16, |v| f16::from_bits(v).to_f32(), |v| f16::from_f32(v)
            .to_bits()),
        ScalarType::BF16 => each!(u16, |v| bf16::from_bits(v).to_f32(), |v| bf16::from_f32(v)
            .to_bits()),
        other => unreachable!("`{other}` is not a CollectiveElem"),
    }
}

/// `acc[i] /= size` (ReduceOp::Avg).
fn divide(elem: ScalarType, acc: &mut [u8], size: usize) {
    macro_rules! each {
        ($t:ty, $div:expr) => {{
            const W: usize = std::mem::size_of::<$t>();
            for a in acc.chunks_exact_mut(W) {
                let v = <$t>::from_le_bytes(a.try_into().unwrap());
                a.copy_from_slice(&$div(v).to_le_bytes());
            }
        }};
    }
    let n = size as i64;
    match elem {
        ScalarType::I8 => each!(i8, |v: i8| (v as i64 / n) as i8),
        ScalarType::U8 => each!(u8, |v: u8| (v as i64 / n) as u8),
        ScalarType::I32 => each!(i32, |v: i32| (v as i64 / n) as i32),
        ScalarType::U32 => each!(u32, |v: u32| (v as i64 / n) as u32),
        ScalarType::I64 | ScalarType::Isize => each!(i64, |v: i64| v / n),
        ScalarType::U64 | ScalarType::Usize => each!(u64, |v: u64| v / size as u64),
        ScalarType::F32 => each!(f32, |v: f32| v / size as f32),
        ScalarType::F64 => each!(f64, |v: f64| v / size as f64),
        ScalarType::F16 => each!(u16, |v: u16| f16::from_f32(
            f16::from_bits(v).to_f32() / size as f32
        )
        .to_bits()),
        ScalarType::BF16 => each!(u16, |v: u16| bf16::from_f32(
            bf16::from_bits(v).to_f32() / size as f32
        )
        .to_bits()),
        other => unreachable!("`{other}` is not a CollectiveElem"),
    }
}
