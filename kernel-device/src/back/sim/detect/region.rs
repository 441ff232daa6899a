//! Which memory region an access names (its own file, so that the detector's parts
//! below `super` can name it without naming the detector).

/// Index into the region table given to [`super::Detector::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegionId(pub u32);
