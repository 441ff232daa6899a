//! The runtime. (Stub: being written.)
