//! cudajit's switches that are on unless a variable turns them off (the warm-ups,
//! compiling while a GPU opens, graph overlap): one reading of what "off" is.

/// Whether `variable` turns its switch off: it is set to `0` (spaces around it
/// ignored). Unset, or any other value, leaves the switch on.
pub(crate) fn turned_off(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|value| value.trim() == "0")
}
