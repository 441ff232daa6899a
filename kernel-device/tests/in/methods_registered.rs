// `#[device] impl Charge { .. }` registers its `#[device]` methods: a kernel calls them
// on values whose type it never names (a device fn's result, a struct's field). The
// unit takes them after what its calls reach (`source::registry::complete`); the
// host-only `describe` is not taken.

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Charge {
    pub q: f32,
    pub m: f32,
}

#[device]
impl Charge {
    #[device]
    pub fn energy(self) -> f32 {
        self.q * self.q / (self.m + 1.0)
    }

    #[device]
    pub fn doubled(self) -> Charge {
        Charge {
            q: self.q * 2.0,
            m: self.m,
        }
    }

    pub fn describe(self) -> f32 {
        self.q - self.m
    }
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Cell {
    pub charge: Charge,
    pub weight: f32,
}

#[device]
fn make_charge(q: f32, m: f32) -> Charge {
    Charge { q, m }
}

#[kernel]
fn unnamed_receivers(q: &[f32], m: &[f32], cells: &[Cell], out: &mut [f32]) {
    let i = grid(1);
    if i < q.len() {
        let made = make_charge(q[i], m[i]);
        let c = cells[i];
        out[2 * i] = made.doubled().energy();
        out[2 * i + 1] = c.charge.energy() * c.weight;
    }
}
