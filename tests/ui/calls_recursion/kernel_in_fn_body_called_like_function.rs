use cudajit::prelude::*;

fn main() {
    #[kernel]
    fn spin(n: u32) {
        let mut i = 0u32;
        while i < n {
            i += 1;
        }
    }

    spin(3);
}
