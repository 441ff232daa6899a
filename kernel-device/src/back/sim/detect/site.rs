//! Source sites as the shadow memory stores them.

use crate::ir::SourceLoc;

/// A source site, packed into the shadow's stamps (no table to look up per access):
/// the function's index (into the file table given to [`Detector::new`]), line and
/// column. Resolved to a [`Site`] only when a fault is reported. Function indices past
/// 4095, lines past 2^20 and columns past 4095 saturate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SiteId {
    pub func: u32,
    pub loc: SourceLoc,
}

impl SiteId {
    pub fn new(func: usize, loc: SourceLoc) -> SiteId {
        SiteId {
            func: u32::try_from(func).unwrap_or(u32::MAX),
            loc,
        }
    }
}
