//! Unit tests of the detector, driven by synthetic event sequences.
