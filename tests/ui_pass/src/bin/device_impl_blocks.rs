//! `#[device] impl` blocks: their `#[device]` methods are found by a kernel that never
//! names the type (the value comes from a slice parameter's element, or from a device
//! function's result), beside a host-only method in the same block.
use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Charge {
    pub q: f32,
    pub x: f32,
}

#[device]
impl Charge {
    #[device]
    pub fn energy(self, at: f32) -> f32 {
        self.q / (at - self.x).abs().max(1e-3)
    }

    pub fn describe(&self) -> String {
        format!("{} at {}", self.q, self.x)
    }
}

#[device]
fn first(charges: &[Charge]) -> Charge {
    charges[0]
}

#[kernel]
fn potential(charges: &[Charge], at: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        let mut total = first(charges).energy(at[i]);
        for k in 1..charges.len() {
            let c = charges[k];
            total += c.energy(at[i]);
        }
        out[i] = total;
    }
}

fn main() {}
