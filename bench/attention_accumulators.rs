// The wgmma accumulator lists of the attention kernels (bench/hopper_attention_kernels.rs):
// the register names must come from one macro_rules so that hygiene lets the kernel bind
// and use them (as bench/m64n256_accumulators.rs does for the GEMMs).

/// Calls `$kernel!(.., s_acc = [..], o_acc = [..])` with the accumulators of S (m64n128:
/// 64 registers) and of O (m64n<D>: D / 2) as `(d<i>, i)`: the name a wgmma's result
/// register `i` is bound to, and its index in the kernel's `s` / `out` array.
macro_rules! with_attention_accumulators {
    ($kernel:ident!($($args:tt)*), d = 128) => {
        with_attention_accumulators!(@list $kernel!($($args)*), o_acc = [
            (d0, 0), (d1, 1), (d2, 2), (d3, 3), (d4, 4), (d5, 5), (d6, 6), (d7, 7), (d8, 8), (d9, 9),
            (d10, 10), (d11, 11), (d12, 12), (d13, 13), (d14, 14), (d15, 15), (d16, 16), (d17, 17), (d18, 18), (d19, 19),
            (d20, 20), (d21, 21), (d22, 22), (d23, 23), (d24, 24), (d25, 25), (d26, 26), (d27, 27), (d28, 28), (d29, 29),
            (d30, 30), (d31, 31), (d32, 32), (d33, 33), (d34, 34), (d35, 35), (d36, 36), (d37, 37), (d38, 38), (d39, 39),
            (d40, 40), (d41, 41), (d42, 42), (d43, 43), (d44, 44), (d45, 45), (d46, 46), (d47, 47), (d48, 48), (d49, 49),
            (d50, 50), (d51, 51), (d52, 52), (d53, 53), (d54, 54), (d55, 55), (d56, 56), (d57, 57), (d58, 58), (d59, 59),
            (d60, 60), (d61, 61), (d62, 62), (d63, 63)
        ]);
    };
    ($kernel:ident!($($args:tt)*), d = 64) => {
        with_attention_accumulators!(@list $kernel!($($args)*), o_acc = [
            (d0, 0), (d1, 1), (d2, 2), (d3, 3), (d4, 4), (d5, 5), (d6, 6), (d7, 7), (d8, 8), (d9, 9),
            (d10, 10), (d11, 11), (d12, 12), (d13, 13), (d14, 14), (d15, 15), (d16, 16), (d17, 17), (d18, 18), (d19, 19),
            (d20, 20), (d21, 21), (d22, 22), (d23, 23), (d24, 24), (d25, 25), (d26, 26), (d27, 27), (d28, 28), (d29, 29),
            (d30, 30), (d31, 31)
        ]);
    };
    (@list $kernel:ident!($($args:tt)*), o_acc = [$($o:tt)*]) => {
        $kernel!($($args)* s_acc = [
            (d0, 0), (d1, 1), (d2, 2), (d3, 3), (d4, 4), (d5, 5), (d6, 6), (d7, 7), (d8, 8), (d9, 9),
            (d10, 10), (d11, 11), (d12, 12), (d13, 13), (d14, 14), (d15, 15), (d16, 16), (d17, 17), (d18, 18), (d19, 19),
            (d20, 20), (d21, 21), (d22, 22), (d23, 23), (d24, 24), (d25, 25), (d26, 26), (d27, 27), (d28, 28), (d29, 29),
            (d30, 30), (d31, 31), (d32, 32), (d33, 33), (d34, 34), (d35, 35), (d36, 36), (d37, 37), (d38, 38), (d39, 39),
            (d40, 40), (d41, 41), (d42, 42), (d43, 43), (d44, 44), (d45, 45), (d46, 46), (d47, 47), (d48, 48), (d49, 49),
            (d50, 50), (d51, 51), (d52, 52), (d53, 53), (d54, 54), (d55, 55), (d56, 56), (d57, 57), (d58, 58), (d59, 59),
            (d60, 60), (d61, 61), (d62, 62), (d63, 63)
        ], o_acc = [$($o)*]);
    };
}
