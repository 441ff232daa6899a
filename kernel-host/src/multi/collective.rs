//! Collective communication between devices: [`Communicators`] for a process that
//! drives every device itself (each collective is one call over all ranks, grouped so
//! that it cannot deadlock), and [`Communicator`] for one rank per process or thread,
//! joined through a [`UniqueId`] that the user passes to the other ranks over any
//! channel (see the README's multi-GPU section for the `torchrun`-style pattern).
//!
//! On GPUs every operation is NCCL's, queued on each device's NULL stream after the
//! arrays' earlier uses (and before their later ones: see `crate::memory::allocation`).
//! On simulated devices the simulator performs it (`super::sim_group`).

use std::sync::{Arc, Mutex};

use kernel_device::ir::ScalarType;

use super::nccl::{self, ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclUniqueId};
use super::op::Op;
pub use super::op::ReduceOp;
use super::sim_group::{SimGroup, SimPart};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

/// An element type collectives move: the scalars NCCL has a type for.
pub trait CollectiveElem: DeviceScalar + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! collective_elem {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl CollectiveElem for $t {}
    )*};
}
collective_elem!(
    i8,
    u8,
    i32,
    u32,
    i64,
    u64,
    isize,
    usize,
    f32,
    f64,
    half::f16,
    half::bf16
);

/// The identity that lets ranks in other processes (or threads) join one communicator:
/// 128 opaque bytes, made by one rank and sent to the others.
#[derive(Clone, Copy)]
pub struct UniqueId {
    bytes: [u8; 128],
}

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UniqueId({:02x?}..)", &self.bytes[..8])
    }
}

impl UniqueId {
    /// A new id from NCCL (for GPUs; `Err` when NCCL is missing).
    pub fn new() -> Result<UniqueId> {
        let nccl = nccl::nccl()?;
        let mut id = ncclUniqueId { internal: [0; 128] };
        // SAFETY: NCCL fills the 128-byte id.
        nccl.check("ncclGetUniqueId", unsafe { (nccl.get_unique_id)(&mut id) })?;
        Ok(UniqueId {
            bytes: id.internal.map(|c| c as u8),
        })
    }

    /// A new id for ranks on simulated devices in this process (threads as ranks).
    pub fn simulated() -> UniqueId {
        UniqueId::from_bytes(SimGroup::new_id())
    }

    /// The bytes to send to the other ranks.
    pub fn to_bytes(&self) -> [u8; 128] {
        self.bytes
    }

    /// An id received from the rank that made it.
    pub fn from_bytes(bytes: [u8; 128]) -> UniqueId {
        UniqueId { bytes }
    }

    fn to_nccl(self) -> ncclUniqueId {
        ncclUniqueId {
            internal: self.bytes.map(|b| b as std::ffi::c_char),
        }
    }
}

/// One rank of a communicator: its device, rank and the number of ranks.
pub struct Communicator {
    device: Device,
    rank: usize,
    size: usize,
    link: Link,
}

enum Link {
    /// An NCCL communicator; NCCL allows one call at a time on it.
    Nccl(Mutex<NcclComm>),
    Sim(Arc<SimGroup>),
}

struct NcclComm {
    comm: ncclComm_t,
    generation: u64,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a time (the
// mutex); its device's context is bound before every call.
unsafe impl Send for NcclComm {}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Communicator(rank {} of {} on {})",
            self.rank,
            self.size,
            self.device.id()
        )
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        if let Link::Nccl(comm) = &mut self.link {
            let comm = comm.get_mut().unwrap_or_else(|p| p.into_inner());
            if let (Ok(nccl), Some(_bound)) =
                (nccl::nccl(), self.device.bind_if_current(comm.generation))
            {
                // SAFETY: a live communicator of this context, destroyed once; its
                // queued work completes first (NCCL waits for it).
                unsafe { (nccl.comm_destroy)(comm.comm) };
            }
        }
    }
}

impl Communicator {
    /// Joins rank `rank` of `size` ranks to the communicator `id` names, on `device`
    /// (a GPU with an id from [`UniqueId::new`], or a simulated device with one from
    /// [`UniqueId::simulated`]). On GPUs this blocks until every rank has joined, as
    /// NCCL does; on the simulator a rank waits in its first collective instead.
    pub fn join(device: &Device, id: &UniqueId, rank: usize, size: usize) -> Result<Communicator> {
        if rank >= size {
            return Err(Error::Refused {
                operation: "Communicator::join",
                detail: format!("rank {rank} is not below the number of ranks, {size}"),
            });
        }
        let link = if device.is_simulator() {
            Link::Sim(SimGroup::join(&id.to_bytes(), rank, size)?)
        } else {
            let nccl = nccl::nccl()?;
            let _bound = device.bind()?;
            let mut comm = std::ptr::null_mut();
            // SAFETY: the device's context is current; NCCL writes the communicator.
            nccl.check("ncclCommInitRank", unsafe {
                (nccl.comm_init_rank)(&mut comm, size as i32, id.to_nccl(), rank as i32)
            })?;
            Link::Nccl(Mutex::new(NcclComm {
                comm,
                generation: device.generation(),
            }))
        };
        Ok(Communicator {
            device: device.clone(),
            rank,
            size,
            link,
        })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// `recv = op(send of every rank)`, on every rank.
    pub fn all_reduce<T: CollectiveElem>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<()> {
        self.alone(Op::AllReduce(op), Some(send), Some(recv))
    }

    /// `buf = op(buf of every rank)`, on every rank.
    pub fn all_reduce_in_place<T: CollectiveElem>(
        &self,
        buf: &mut DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<()> {
        self.alone(Op::AllReduce(op), None, Some(buf))
    }

    /// `recv = op(send of every rank)` on rank `root`; `recv` is not written elsewhere.
    pub fn reduce<T: CollectiveElem>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        self.alone(Op::Reduce(op, root), Some(send), Some(recv))
    }

    /// Rank `root`'s `buf` copied into every rank's `buf`.
    pub fn broadcast<T: CollectiveElem>(
        &self,
        buf: &mut DeviceArray<T>,
        root: usize,
    ) -> Result<()> {
        self.alone(Op::Broadcast(root), None, Some(buf))
    }

    /// Every rank's `send`, in rank order, into `recv` (`size` times as long).
    pub fn all_gather<T: CollectiveElem>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
    ) -> Result<()> {
        self.alone(Op::AllGather, Some(send), Some(recv))
    }

    /// `op` over every rank's `send` (`size` times as long as `recv`); rank `r` gets
    /// block `r` of the result.
    pub fn reduce_scatter<T: CollectiveElem>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<()> {
        self.alone(Op::ReduceScatter(op), Some(send), Some(recv))
    }

    /// Sends `buf` to rank `peer`, which receives it with [`Communicator::recv`].
    pub fn send<T: CollectiveElem>(&self, buf: &DeviceArray<T>, peer: usize) -> Result<()> {
        self.alone(Op::Send(peer), Some(buf), None::<&mut DeviceArray<T>>)
    }

    /// Receives into `buf` what rank `peer` sends.
    pub fn recv<T: CollectiveElem>(&self, buf: &mut DeviceArray<T>, peer: usize) -> Result<()> {
        self.alone(Op::Recv(peer), None, Some(buf))
    }

    /// One rank's call outside a group: on the simulator it waits for the other ranks
    /// (as the GPU's stream would), with a time limit instead of a hang.
    fn alone<T: CollectiveElem>(
        &self,
        op: Op,
        send: Option<&DeviceArray<T>>,
        recv: Option<&mut DeviceArray<T>>,
    ) -> Result<()> {
        let call = self.prepare(op, send, recv.map(|r| &*r))?;
        match &self.link {
            Link::Nccl(comm) => {
                let comm = comm.lock().unwrap_or_else(|p| p.into_inner());
                let _bound = self.device.bind()?;
                call.enqueue_nccl(comm.comm)
            }
            Link::Sim(group) => {
                let ticket = group.deposit(self.rank, call.sim_part()?)?;
                group.wait(ticket, op)
            }
        }
    }

    /// Checks a call's arrays (on this rank's device; lengths that fit the operation)
    /// and orders their GPU memory on the NULL stream.
    fn prepare<'a, T: CollectiveElem>(
        &self,
        op: Op,
        send: Option<&'a DeviceArray<T>>,
        recv: Option<&'a DeviceArray<T>>,
    ) -> Result<Call<'a, T>> {
        for array in send.iter().chain(recv.iter()) {
            if array.device() != &self.device {
                return Err(Error::ArgumentMismatch {
                    kernel: op.name().into(),
                    detail: format!(
                        "rank {}'s array is on {}, but the rank's communicator is on {}",
                        self.rank,
                        array.device().id(),
                        self.device.id()
                    ),
                });
            }
            array.ensure_current()?;
        }
        let peer_or_root = match op {
            Op::Reduce(_, r) | Op::Broadcast(r) | Op::Send(r) | Op::Recv(r) => Some(r),
            _ => None,
        };
        if let Some(r) = peer_or_root.filter(|&r| r >= self.size) {
            return Err(Error::Refused {
                operation: op.name(),
                detail: format!(
                    "rank {r} does not exist: the communicator has {} ranks",
                    self.size
                ),
            });
        }
        let (n_send, n_recv) = (send.map(|a| a.len()), recv.map(|a| a.len()));
        let fits = match (op, n_send, n_recv) {
            (Op::AllGather, Some(s), Some(r)) => {
                Some(s) == r.checked_div(self.size).filter(|q| q * self.size == r)
            }
            (Op::ReduceScatter(_), Some(s), Some(r)) => {
                Some(r) == s.checked_div(self.size).filter(|q| q * self.size == s)
            }
            (_, Some(s), Some(r)) => s == r,
            _ => true,
        };
        if !fits {
            return Err(Error::Refused {
                operation: op.name(),
                detail: format!(
                    "rank {}: send has {} elements and recv {}, which does not fit {} of {} ranks",
                    self.rank,
                    n_send.unwrap_or(0),
                    n_recv.unwrap_or(0),
                    op.name(),
                    self.size
                ),
            });
        }
        if !self.device.is_simulator() {
            let _bound = self.device.bind()?;
            if let Some(a) = send.and_then(DeviceArray::allocation) {
                self.device.watch(a.use_on(&None, false))?;
            }
            if let Some(a) = recv.and_then(DeviceArray::allocation) {
                self.device.watch(a.use_on(&None, true))?;
            }
        }
        Ok(Call {
            op,
            rank: self.rank,
            send,
            recv,
        })
    }
}

/// One rank's checked part of a collective.
struct Call<'a, T: CollectiveElem> {
    op: Op,
    rank: usize,
    send: Option<&'a DeviceArray<T>>,
    recv: Option<&'a DeviceArray<T>>,
}

impl<T: CollectiveElem> Call<'_, T> {
    /// Queues the call on the current context's NULL stream.
    fn enqueue_nccl(&self, comm: ncclComm_t) -> Result<()> {
        let nccl = nccl::nccl()?;
        let ptr = |a: Option<&DeviceArray<T>>| a.map_or(0, DeviceArray::device_ptr);
        let recv = ptr(self.recv) as *mut std::ffi::c_void;
        // In place: the send buffer is the receive buffer.
        let send = match self.send {
            Some(a) => a.device_ptr() as *const std::ffi::c_void,
            None => recv as *const std::ffi::c_void,
        };
        let count = |a: Option<&DeviceArray<T>>| a.map_or(0, DeviceArray::len);
        let ty = nccl_type(T::SCALAR);
        let null = std::ptr::null_mut();
        // SAFETY: both buffers are device arrays of this context holding the counts
        // passed (`prepare` checked the lengths); NULL is the legacy stream.
        let result = unsafe {
            match self.op {
                Op::AllReduce(op) => {
                    (nccl.all_reduce)(send, recv, count(self.recv), ty, red(op), comm, null)
                }
                Op::Reduce(op, root) => (nccl.reduce)(
                    send,
                    recv,
                    count(self.recv),
                    ty,
                    red(op),
                    root as i32,
                    comm,
                    null,
                ),
                Op::Broadcast(root) => {
                    (nccl.broadcast)(send, recv, count(self.recv), ty, root as i32, comm, null)
                }
                Op::AllGather => (nccl.all_gather)(send, recv, count(self.send), ty, comm, null),
                Op::ReduceScatter(op) => {
                    (nccl.reduce_scatter)(send, recv, count(self.recv), ty, red(op), comm, null)
                }
                Op::Send(peer) => (nccl.send)(send, count(self.send), ty, peer as i32, comm, null),
                Op::Recv(peer) => (nccl.recv)(recv, count(self.recv), ty, peer as i32, comm, null),
            }
        };
        nccl.check(self.op.name(), result)
    }

    /// The call as the simulator's group takes it: the send bytes as of now (the
    /// simulator's work is synchronous), the receive buffer to write.
    fn sim_part(&self) -> Result<SimPart> {
        let bytes = |a: &DeviceArray<T>| -> Vec<u8> {
            let mut out = vec![0u8; a.len() * std::mem::size_of::<T>()];
            if let Some(buffer) = a.sim_buffer() {
                buffer.read(0, &mut out);
            }
            out
        };
        Ok(SimPart {
            op: self.op,
            rank: self.rank,
            elem: T::SCALAR,
            send: self.send.or(self.recv).map(bytes).unwrap_or_default(),
            recv: self.recv.and_then(|a| a.sim_buffer().cloned()),
        })
    }
}

fn nccl_type(s: ScalarType) -> ncclDataType_t {
    use ncclDataType_t as D;
    match s {
        ScalarType::I8 => D::ncclInt8,
        ScalarType::U8 => D::ncclUint8,
        ScalarType::I32 => D::ncclInt32,
        ScalarType::U32 => D::ncclUint32,
        ScalarType::I64 | ScalarType::Isize => D::ncclInt64,
        ScalarType::U64 | ScalarType::Usize => D::ncclUint64,
        ScalarType::F16 => D::ncclFloat16,
        ScalarType::BF16 => D::ncclBfloat16,
        ScalarType::F32 => D::ncclFloat32,
        ScalarType::F64 => D::ncclFloat64,
        other => unreachable!("`{other}` is not a CollectiveElem"),
    }
}

fn red(op: ReduceOp) -> ncclRedOp_t {
    match op {
        ReduceOp::Sum => ncclRedOp_t::ncclSum,
        ReduceOp::Prod => ncclRedOp_t::ncclProd,
        ReduceOp::Min => ncclRedOp_t::ncclMin,
        ReduceOp::Max => ncclRedOp_t::ncclMax,
        ReduceOp::Avg => ncclRedOp_t::ncclAvg,
    }
}

/// One communicator rank per device, for a process that drives all of them: each
/// collective is a single call taking one array per rank (in rank order), grouped so
/// that one thread can drive every device without deadlock.
pub struct Communicators {
    ranks: Vec<Communicator>,
}

impl Communicators {
    /// A communicator over `devices` (distinct, all GPUs or all simulated).
    pub fn new(devices: &[Device]) -> Result<Communicators> {
        for (i, a) in devices.iter().enumerate() {
            if let Some(b) = devices[..i].iter().find(|b| *b == a) {
                return Err(Error::Refused {
                    operation: "Communicators::new",
                    detail: format!("{} is listed twice", b.id()),
                });
            }
        }
        let size = devices.len();
        if devices.iter().all(Device::is_simulator) {
            let id = UniqueId::simulated();
            let ranks = devices
                .iter()
                .enumerate()
                .map(|(rank, device)| {
                    Ok(Communicator {
                        device: device.clone(),
                        rank,
                        size,
                        link: Link::Sim(SimGroup::join(&id.to_bytes(), rank, size)?),
                    })
                })
                .collect::<Result<_>>()?;
            return Ok(Communicators { ranks });
        }
        if devices.iter().any(Device::is_simulator) {
            return Err(Error::Refused {
                operation: "Communicators::new",
                detail: "GPUs and simulated devices cannot share a communicator".into(),
            });
        }
        let nccl = nccl::nccl()?;
        let ordinals: Vec<i32> = devices.iter().map(|d| d.ordinal() as i32).collect();
        let mut comms = vec![std::ptr::null_mut(); size];
        let _bound: Vec<_> = devices.iter().map(Device::bind).collect::<Result<_>>()?;
        // SAFETY: NCCL writes one communicator per listed device.
        nccl.check("ncclCommInitAll", unsafe {
            (nccl.comm_init_all)(comms.as_mut_ptr(), size as i32, ordinals.as_ptr())
        })?;
        let ranks = devices
            .iter()
            .zip(comms)
            .enumerate()
            .map(|(rank, (device, comm))| Communicator {
                device: device.clone(),
                rank,
                size,
                link: Link::Nccl(Mutex::new(NcclComm {
                    comm,
                    generation: device.generation(),
                })),
            })
            .collect();
        Ok(Communicators { ranks })
    }

    /// The ranks, in order.
    pub fn ranks(&self) -> &[Communicator] {
        &self.ranks
    }

    pub fn len(&self) -> usize {
        self.ranks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }

    /// `bufs[r] = op(bufs of every rank)` for every rank `r`.
    pub fn all_reduce<T: CollectiveElem>(
        &self,
        bufs: &mut [DeviceArray<T>],
        op: ReduceOp,
    ) -> Result<()> {
        self.grouped(Op::AllReduce(op), None, bufs)
    }

    /// `recv[r] = op(send of every rank)` for every rank `r`.
    pub fn all_reduce_into<T: CollectiveElem>(
        &self,
        send: &[DeviceArray<T>],
        recv: &mut [DeviceArray<T>],
        op: ReduceOp,
    ) -> Result<()> {
        self.grouped(Op::AllReduce(op), Some(send), recv)
    }

    /// `bufs[root] = op(bufs of every rank)`; the other ranks' arrays are unchanged.
    pub fn reduce<T: CollectiveElem>(
        &self,
        bufs: &mut [DeviceArray<T>],
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        self.grouped(Op::Reduce(op, root), None, bufs)
    }

    /// `bufs[root]` copied to every rank.
    pub fn broadcast<T: CollectiveElem>(
        &self,
        bufs: &mut [DeviceArray<T>],
        root: usize,
    ) -> Result<()> {
        self.grouped(Op::Broadcast(root), None, bufs)
    }

    /// Every rank's `send`, in rank order, into each `recv` (`len()` times as long).
    pub fn all_gather<T: CollectiveElem>(
        &self,
        send: &[DeviceArray<T>],
        recv: &mut [DeviceArray<T>],
    ) -> Result<()> {
        self.grouped(Op::AllGather, Some(send), recv)
    }

    /// `op` over every rank's `send`; rank `r` gets block `r` of the result in `recv[r]`.
    pub fn reduce_scatter<T: CollectiveElem>(
        &self,
        send: &[DeviceArray<T>],
        recv: &mut [DeviceArray<T>],
        op: ReduceOp,
    ) -> Result<()> {
        self.grouped(Op::ReduceScatter(op), Some(send), recv)
    }

    /// Every rank's part of `op`, inside one NCCL group (on the simulator: every part
    /// deposited, the last completing it).
    fn grouped<T: CollectiveElem>(
        &self,
        op: Op,
        send: Option<&[DeviceArray<T>]>,
        recv: &mut [DeviceArray<T>],
    ) -> Result<()> {
        let n = self.ranks.len();
        if recv.len() != n || send.is_some_and(|s| s.len() != n) {
            return Err(Error::Refused {
                operation: op.name(),
                detail: format!(
                    "one array per rank is needed: {n} ranks, {} arrays given",
                    if recv.len() != n {
                        recv.len()
                    } else {
                        send.map_or(0, <[_]>::len)
                    }
                ),
            });
        }
        let calls = self
            .ranks
            .iter()
            .enumerate()
            .map(|(r, rank)| rank.prepare(op, send.map(|s| &s[r]), Some(&recv[r])))
            .collect::<Result<Vec<_>>>()?;
        match &self.ranks.first().map(|r| &r.link) {
            None => Ok(()),
            Some(Link::Sim(group)) => {
                for call in &calls {
                    group.deposit(call.rank, call.sim_part()?)?;
                }
                Ok(())
            }
            Some(Link::Nccl(_)) => {
                let nccl = nccl::nccl()?;
                let bound: Vec<_> = self
                    .ranks
                    .iter()
                    .map(|r| r.device.bind())
                    .collect::<Result<_>>()?;
                // SAFETY: opens a group closed below on every path.
                nccl.check("ncclGroupStart", unsafe { (nccl.group_start)() })?;
                let mut first_error = Ok(());
                for (rank, call) in self.ranks.iter().zip(&calls) {
                    let Link::Nccl(comm) = &rank.link else {
                        unreachable!("one backend")
                    };
                    let comm = comm.lock().unwrap_or_else(|p| p.into_inner());
                    let _current = rank.device.bind()?;
                    if let Err(e) = call.enqueue_nccl(comm.comm) {
                        first_error = first_error.and(Err(e));
                    }
                }
                // SAFETY: closes the group opened above.
                let end = nccl.check("ncclGroupEnd", unsafe { (nccl.group_end)() });
                drop(bound);
                first_error.and(end)
            }
        }
    }
}
