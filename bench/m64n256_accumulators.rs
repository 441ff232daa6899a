// The m64n256 wgmma accumulator list both Hopper GEMM benchmarks expand their kernels
// with (bench/hopper_kernels.rs, bench/hopper_fp8_kernels.rs include it: the register
// names must come from one macro_rules so that hygiene lets the kernels use them).

/// Calls `$kernel!(.., rows = (top, bottom), acc = [..])` with m64n256's 128 accumulator
/// registers: `(c, d, half, col)` for register `i` = `(c<i>, d<i>, top if (i / 2) % 2 == 0
/// else bottom, 8 (i / 4) + i % 2)`. (The row names come from here, as the accumulators'
/// do, so that macro hygiene lets the kernel bind and use them.)
macro_rules! with_m64n256_accumulators {
    ($kernel:ident!($($args:tt)*)) => {
        $kernel!($($args)* rows = (top, bottom), acc = [
            (c0, d0, top, 0), (c1, d1, top, 1), (c2, d2, bottom, 0), (c3, d3, bottom, 1), (c4, d4, top, 8),
            (c5, d5, top, 9), (c6, d6, bottom, 8), (c7, d7, bottom, 9), (c8, d8, top, 16), (c9, d9, top, 17),
            (c10, d10, bottom, 16), (c11, d11, bottom, 17), (c12, d12, top, 24), (c13, d13, top, 25),
            (c14, d14, bottom, 24), (c15, d15, bottom, 25), (c16, d16, top, 32), (c17, d17, top, 33),
            (c18, d18, bottom, 32), (c19, d19, bottom, 33), (c20, d20, top, 40), (c21, d21, top, 41),
            (c22, d22, bottom, 40), (c23, d23, bottom, 41), (c24, d24, top, 48), (c25, d25, top, 49),
            (c26, d26, bottom, 48), (c27, d27, bottom, 49), (c28, d28, top, 56), (c29, d29, top, 57),
            (c30, d30, bottom, 56), (c31, d31, bottom, 57), (c32, d32, top, 64), (c33, d33, top, 65),
            (c34, d34, bottom, 64), (c35, d35, bottom, 65), (c36, d36, top, 72), (c37, d37, top, 73),
            (c38, d38, bottom, 72), (c39, d39, bottom, 73), (c40, d40, top, 80), (c41, d41, top, 81),
            (c42, d42, bottom, 80), (c43, d43, bottom, 81), (c44, d44, top, 88), (c45, d45, top, 89),
            (c46, d46, bottom, 88), (c47, d47, bottom, 89), (c48, d48, top, 96), (c49, d49, top, 97),
            (c50, d50, bottom, 96), (c51, d51, bottom, 97), (c52, d52, top, 104), (c53, d53, top, 105),
            (c54, d54, bottom, 104), (c55, d55, bottom, 105), (c56, d56, top, 112), (c57, d57, top, 113),
            (c58, d58, bottom, 112), (c59, d59, bottom, 113), (c60, d60, top, 120), (c61, d61, top, 121),
            (c62, d62, bottom, 120), (c63, d63, bottom, 121), (c64, d64, top, 128), (c65, d65, top, 129),
            (c66, d66, bottom, 128), (c67, d67, bottom, 129), (c68, d68, top, 136), (c69, d69, top, 137),
            (c70, d70, bottom, 136), (c71, d71, bottom, 137), (c72, d72, top, 144), (c73, d73, top, 145),
            (c74, d74, bottom, 144), (c75, d75, bottom, 145), (c76, d76, top, 152), (c77, d77, top, 153),
            (c78, d78, bottom, 152), (c79, d79, bottom, 153), (c80, d80, top, 160), (c81, d81, top, 161),
            (c82, d82, bottom, 160), (c83, d83, bottom, 161), (c84, d84, top, 168), (c85, d85, top, 169),
            (c86, d86, bottom, 168), (c87, d87, bottom, 169), (c88, d88, top, 176), (c89, d89, top, 177),
            (c90, d90, bottom, 176), (c91, d91, bottom, 177), (c92, d92, top, 184), (c93, d93, top, 185),
            (c94, d94, bottom, 184), (c95, d95, bottom, 185), (c96, d96, top, 192), (c97, d97, top, 193),
            (c98, d98, bottom, 192), (c99, d99, bottom, 193), (c100, d100, top, 200), (c101, d101, top, 201),
            (c102, d102, bottom, 200), (c103, d103, bottom, 201), (c104, d104, top, 208),
            (c105, d105, top, 209), (c106, d106, bottom, 208), (c107, d107, bottom, 209),
            (c108, d108, top, 216), (c109, d109, top, 217), (c110, d110, bottom, 216),
            (c111, d111, bottom, 217), (c112, d112, top, 224), (c113, d113, top, 225),
            (c114, d114, bottom, 224), (c115, d115, bottom, 225), (c116, d116, top, 232),
            (c117, d117, top, 233), (c118, d118, bottom, 232), (c119, d119, bottom, 233),
            (c120, d120, top, 240), (c121, d121, top, 241), (c122, d122, bottom, 240),
            (c123, d123, bottom, 241), (c124, d124, top, 248), (c125, d125, top, 249),
            (c126, d126, bottom, 248), (c127, d127, bottom, 249)
        ]);
    };
}
