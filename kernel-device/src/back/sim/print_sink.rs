//! The buffer a simulated launch's print statements append to, shared with the host
//! (`super::config::Options::prints`); what appends is `super::print`.

use std::sync::{Arc, Mutex};

use crate::ir::format::record;

/// A launch's print buffer in the device's layout (header included), shared with the
/// host that made it. Equal only to itself.
#[derive(Clone, Debug)]
pub struct PrintSink(pub Arc<Mutex<Vec<u8>>>);

impl PrintSink {
    /// A buffer of `bytes` bytes (at least the header), reset for a launch.
    pub fn with_capacity(bytes: usize) -> PrintSink {
        let mut buffer = vec![0u8; bytes.max(record::BUFFER_HEADER_BYTES)];
        record::reset_buffer(&mut buffer).expect("at least the header");
        PrintSink(Arc::new(Mutex::new(buffer)))
    }

    /// Forgets what a previous schedule printed.
    pub fn reset(&self) {
        let mut buffer = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let _ = record::reset_buffer(&mut buffer);
    }
}
