// `#[device]` methods of `#[derive(DeviceCopy)]` structs: `self`, `&self`, associated
// functions and `Self`, called with method syntax, by path and from other methods.

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

impl Vec3 {
    #[device]
    pub fn new(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3 { x, y, z }
    }

    #[device]
    pub fn dot(self, o: Vec3) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[device]
    pub fn len(&self) -> f32 {
        self.dot(*self).sqrt()
    }

    #[device]
    pub fn scaled(self, k: f32) -> Self {
        Self::new(self.x * k, self.y * k, self.z * k)
    }
}

#[kernel]
fn lengths(v: &[Vec3], out: &mut [f32], unit: &mut [Vec3]) {
    let i = grid(1);
    if i < v.len() {
        let p: Vec3 = v[i];
        out[i] = p.len() + Vec3::dot(p, Vec3::new(1.0, 0.0, 0.0));
        unit[i] = p.scaled(1.0 / p.len());
    }
}
