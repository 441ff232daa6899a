//! Empty: this package exists for its `sim_fuzz` test (see Cargo.toml for why it is a
//! package of its own).
