//! Rendered messages of failed `assert!`/`panic!`s with arguments, by (kernel, block,
//! thread, format): what the GPU's panic report (`crate::executor::panic`) shows
//! instead of its site's marker. Filled by the print drain (`crate::print`, above the
//! device), read by the panic decoder (`super::panic`).

use std::collections::HashMap;
use std::sync::Mutex;

use kernel_device::back::nvvm::print::FORMATTED_PANIC_PREFIX;

type PanicKey = (String, u64, u32, u32);

static PANIC_MESSAGES: Mutex<Option<HashMap<PanicKey, String>>> = Mutex::new(None);

/// Remembers `kernel`'s rendered panic messages `(block, thread, format, text)`.
pub(crate) fn remember(kernel: &str, panics: impl Iterator<Item = (u64, u32, u32, String)>) {
    let mut panics = panics.peekable();
    if panics.peek().is_none() {
        return;
    }
    let mut messages = PANIC_MESSAGES.lock().unwrap_or_else(|p| p.into_inner());
    let messages = messages.get_or_insert_with(HashMap::new);
    for (block, thread, format, text) in panics {
        messages.insert((kernel.to_string(), block, thread, format), text);
    }
}

/// The message of a GPU panic whose site's message is a formatted panic's marker:
/// the text rendered from the thread's record (drained by the synchronisation that
/// found the panic). `None` for an ordinary site message.
pub(crate) fn formatted_panic(
    kernel: &str,
    message: &str,
    block: u32,
    thread: u32,
) -> Option<String> {
    let format: u32 = message.strip_prefix(FORMATTED_PANIC_PREFIX)?.parse().ok()?;
    let key = (kernel.to_string(), u64::from(block), thread, format);
    let mut messages = PANIC_MESSAGES.lock().unwrap_or_else(|p| p.into_inner());
    Some(
        messages
            .as_mut()
            .and_then(|m| m.remove(&key))
            .unwrap_or_else(|| {
                "panicked with a formatted message that did not fit in the print buffer \
                 (give it more room with CUDAJIT_PRINT_BUFFER)"
                    .to_string()
            }),
    )
}
