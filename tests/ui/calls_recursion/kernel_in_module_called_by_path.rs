mod kernels {
    use cudajit::prelude::*;

    #[kernel]
    pub fn spin(n: u32) {
        let mut i = 0u32;
        while i < n {
            i += 1;
        }
    }
}

fn main() {
    kernels::spin(3);
}
