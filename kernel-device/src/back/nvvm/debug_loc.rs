//! The writer's side of the line tables (`super::debug_info` holds the nodes): which
//! Rust location the instructions written now carry, and the `!dbg` suffixes.

use crate::ir::SourceLoc;

use super::state::FunctionWriter;

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// ` !dbg !N` for an instruction written now, or nothing.
    pub(super) fn dbg_suffix(&mut self) -> String {
        match self.dbg {
            Some(d) if d.loc.line != 0 => {
                format!(", !dbg !{}", self.w.debug.location(d.subprogram, d.loc))
            }
            _ => String::new(),
        }
    }

    /// The function header's ` !dbg !N` (its `DISubprogram`), or nothing.
    pub(super) fn subprogram_suffix(&self) -> String {
        self.dbg
            .map(|d| format!(" !dbg !{}", d.subprogram))
            .unwrap_or_default()
    }

    /// Makes `loc` the location of the instructions written from now on; returns the
    /// previous one (to restore).
    pub(super) fn set_loc(&mut self, loc: SourceLoc) -> Option<SourceLoc> {
        let d = self.dbg.as_mut()?;
        let previous = d.loc;
        if loc.line != 0 && !d.pinned {
            d.loc = loc;
        }
        Some(previous)
    }

    /// Keeps the current location for every instruction written until
    /// [`Self::unpin_loc`] (code that runs on behalf of a whole statement, such as a
    /// versioned run's guard); returns whether it was already pinned.
    pub(super) fn pin_loc(&mut self) -> bool {
        self.dbg
            .as_mut()
            .is_some_and(|d| std::mem::replace(&mut d.pinned, true))
    }

    pub(super) fn unpin_loc(&mut self, was_pinned: bool) {
        if let Some(d) = self.dbg.as_mut() {
            d.pinned = was_pinned;
        }
    }

    pub(super) fn restore_loc(&mut self, previous: Option<SourceLoc>) {
        if let (Some(d), Some(loc)) = (self.dbg.as_mut(), previous) {
            d.loc = loc;
        }
    }
}
