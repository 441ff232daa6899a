//! Other libraries' memory and streams as cudajit's, and back: cudarc slices, raw device
//! pointers and streams (`cudarc`), DLPack tensors (`dlpack`).

pub(crate) mod cudarc;
pub(crate) mod dlpack;
