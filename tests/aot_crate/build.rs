// What a user writes: compile the crate's kernels ahead of time (warns and leaves them
// to the JIT when no libnvvm is installed).
fn main() {
    cudajit_build::embed_device_code();
}
