//! Front-end rules of thread-block clusters (`proc::cluster`): a peer access
//! (`peer_read` / `peer_write`) names an element of a shared array, which the block of
//! the given rank holds its own copy of; memory known to live elsewhere is a compile
//! error here (the NVVM writer and the simulator check the rest at run time).

use proc_macro2::Span;

use super::lower_fn::FnLowerer;
use crate::ir::{self, Handle};

impl FnLowerer<'_> {
    /// `false` (after an error at `at`) when the slice `h` of the peer access `name`
    /// is known not to be shared memory.
    pub(super) fn check_peer_space(&mut self, name: &str, h: Handle<ir::Expr>, at: Span) -> bool {
        let Some(words) = self.known_non_shared(h) else {
            return true;
        };
        self.error_hint(
            at,
            format!("`{name}` reaches a peer block's shared memory, but this slice is in {words}"),
            "name a `shared_array::<[T; N]>()` (or a `dynamic_shared().take::<T>(n)` slice): every block of the cluster holds its own copy, which `peer_read` / `peer_write` reach by rank",
        );
        false
    }
}
