//! `#[kernel]` and `#[device]`. (Stub: being written.)
