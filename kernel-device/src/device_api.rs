//! Typed stand-ins for the device intrinsics, called by the rustc-checked twin of each
//! kernel body. (Stub: being written.)
