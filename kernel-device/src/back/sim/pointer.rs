//! Simulated pointers: a region number in the high 16 bits (an argument buffer, a
//! shared array, a lane's local memory) and a byte offset into it in the low 48.

const OFFSET_BITS: u32 = 48;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// The region of the executing lane's local memory.
pub const LOCAL_REGION: u64 = 1;

pub fn ptr(region: u64, offset: u64) -> u64 {
    (region << OFFSET_BITS) | (offset & OFFSET_MASK)
}

pub fn region_of(p: u64) -> usize {
    (p >> OFFSET_BITS) as usize
}

pub fn offset_of(p: u64) -> u64 {
    p & OFFSET_MASK
}

/// `p + delta` bytes; an offset past 2^48 stays at the last byte of the region's
/// address range (outside every buffer) rather than wrapping into another region.
pub fn ptr_add(p: u64, delta: u64) -> u64 {
    let offset = offset_of(p).saturating_add(delta).min(OFFSET_MASK);
    (p & !OFFSET_MASK) | offset
}
