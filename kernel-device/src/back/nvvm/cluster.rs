//! Thread-block clusters as inline PTX (libnvvm's LLVM 7 has no intrinsics for the
//! sm_90 cluster registers, `barrier.cluster` or `mapa`): the cluster's special
//! registers, `cluster_sync()`, and the peer accesses of distributed shared memory.
//! A peer access checks the index against the slice (the slice names the same shared
//! array in every block of the cluster), the rank against `%cluster_nctarank`
//! (`proc::cluster::RANK_MESSAGE`) and, unless the slice is visibly a shared array,
//! that it is shared memory (`proc::cluster::SPACE_MESSAGE`): `mapa` of any other
//! address is undefined.

use super::state::{operand, FunctionWriter, Val};
use super::Error;
use crate::ir::{Axis, ClusterOp, Expr, Handle, ScalarType, Type};
use crate::proc::cluster::{RANK_MESSAGE, SPACE_MESSAGE};

fn axis_name(a: Axis) -> &'static str {
    match a {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}

/// The LLVM type, PTX type suffix and inline-asm constraint of a peer element.
fn peer_element(s: ScalarType) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match s {
        ScalarType::I32 | ScalarType::U32 => ("i32", "b32", "r"),
        ScalarType::F32 => ("float", "f32", "f"),
        ScalarType::I64 | ScalarType::U64 => ("i64", "b64", "l"),
        ScalarType::F64 => ("double", "f64", "d"),
        _ => return None,
    })
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// A cluster special register (`%cluster_ctarank`, `%cluster_ctaid.x`, ...).
    fn cluster_sreg(&mut self, reg: &str) -> String {
        self.def(
            "cluster.sreg",
            format!("call i32 asm \"mov.u32 $0, %{reg};\", \"=r\"()"),
        )
    }

    /// `cluster_*`, `peer_read` and `peer_write`.
    pub fn cluster(
        &mut self,
        site: Handle<Expr>,
        ty: &Type,
        op: ClusterOp,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        if let Some(arch) = self.w.options.arch.filter(|&a| a < 90) {
            return Err(self.error(format!(
                "thread-block clusters need compute capability 9.0 or later; the target is compute_{arch}"
            )));
        }
        Ok(match op {
            ClusterOp::BlockRank => Val::V(self.cluster_sreg("cluster_ctarank")),
            ClusterOp::Size => Val::V(self.cluster_sreg("cluster_nctarank")),
            ClusterOp::BlockIdx(a) => {
                Val::V(self.cluster_sreg(&format!("cluster_ctaid.{}", axis_name(a))))
            }
            ClusterOp::Dim(a) => {
                Val::V(self.cluster_sreg(&format!("cluster_nctaid.{}", axis_name(a))))
            }
            ClusterOp::Sync => {
                // The default semantics are what `cluster_sync()` promises: the arrive
                // releases, the wait acquires. Not `.aligned`: threads of a warp may
                // reach it apart.
                self.inst("call void asm sideeffect \"barrier.cluster.arrive.release;\\0Abarrier.cluster.wait.acquire;\", \"~{memory}\"()");
                Val::Unit
            }
            ClusterOp::PeerRead | ClusterOp::PeerWrite => {
                return self.peer_access(site, ty, op, args)
            }
        })
    }

    fn peer_access(
        &mut self,
        site: Handle<Expr>,
        ty: &Type,
        op: ClusterOp,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        let slice_ty = self.ty_of(args[0])?.clone();
        let elem = match op {
            ClusterOp::PeerRead => ty.scalar(),
            _ => slice_ty.slice_elem().and_then(|(e, _)| e.scalar()),
        }
        .ok_or_else(|| self.error(format!("a peer access of `{slice_ty}`")))?;
        let (llvm, ptx, constraint) =
            peer_element(elem).ok_or_else(|| self.error(format!("a peer access of `{elem}`")))?;
        let ptr = self.checked_element_ptr(site, &slice_ty, &vals[0], &vals[2])?;
        let addr = self.def("peer.addr", format!("ptrtoint {llvm}* {ptr} to i64"));
        if !self.is_visibly_shared(args[0]) {
            let shared = self.is_in_space("shared", &addr);
            let sty = super::types::value(&slice_ty).map_err(|e| self.error(e.0))?;
            let len = self.def("peer.len", format!("extractvalue {sty} {}, 1", vals[0]));
            self.panic_unless(&shared, site, SPACE_MESSAGE, (&vals[2], &len))?;
        }
        let rank = &vals[1];
        let size = self.cluster_sreg("cluster_nctarank");
        let ok = self.def("peer.rank.ok", format!("icmp ult i32 {rank}, {size}"));
        let rank64 = self.def("peer.rank64", format!("zext i32 {rank} to i64"));
        let size64 = self.def("peer.size64", format!("zext i32 {size} to i64"));
        self.panic_unless(&ok, site, RANK_MESSAGE, (&rank64, &size64))?;
        // The element's 32-bit shared address in this block, mapped to the peer's.
        let map = ".reg .u64 s; .reg .u32 a, p; cvta.to.shared.u64 s, $1; cvt.u32.u64 a, s; mapa.shared::cluster.u32 p, a, $2;";
        Ok(match op {
            ClusterOp::PeerRead => Val::V(self.def(
                "peer.value",
                format!(
                    "call {llvm} asm sideeffect \"{{ {map} ld.shared::cluster.{ptx} $0, [p]; }}\", \"={constraint},l,r,~{{memory}}\"(i64 {addr}, i32 {rank})"
                ),
            )),
            _ => {
                let value = &vals[3];
                self.inst(format!(
                    "call void asm sideeffect \"{{ {map} st.shared::cluster.{ptx} [p], $0; }}\", \"{constraint},l,r,~{{memory}}\"({llvm} {value}, i64 {addr}, i32 {rank})"
                ));
                Val::Unit
            }
        })
    }
}
