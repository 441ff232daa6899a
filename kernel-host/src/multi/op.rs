//! What a collective is, below both the communicators (`super::collective`) and the
//! simulator's implementation (`super::sim_group`), which both name it.

/// How a reduction combines the ranks' elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Prod,
    Min,
    Max,
    /// The sum divided by the number of ranks (integer division for integers).
    Avg,
}

/// What one rank does in a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    AllReduce(ReduceOp),
    Reduce(ReduceOp, usize),
    Broadcast(usize),
    AllGather,
    ReduceScatter(ReduceOp),
    Send(usize),
    Recv(usize),
}

impl Op {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::AllReduce(_) => "all_reduce",
            Op::Reduce(..) => "reduce",
            Op::Broadcast(_) => "broadcast",
            Op::AllGather => "all_gather",
            Op::ReduceScatter(_) => "reduce_scatter",
            Op::Send(_) => "send",
            Op::Recv(_) => "recv",
        }
    }
}
