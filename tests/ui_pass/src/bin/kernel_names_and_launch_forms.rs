//! A kernel's name is a type holding its items and a fn with its signature: every way
//! to name and launch one compiles (paths, generic kernels with and without a
//! turbofish, kernels inside fn bodies and modules, renamed imports).
use cudajit::prelude::*;

mod outer {
    pub mod inner {
        use cudajit::prelude::*;

        #[kernel]
        pub fn spin(n: u32, scale: f32, out: &mut [f32]) {
            out[0] = n as f32 * scale;
        }

        #[kernel]
        pub fn tile<T: Float, const N: usize>(x: &mut [T]) {
            let i = grid(1);
            if i < x.len() && i < N {
                x[i] = x[i] + T::one();
            }
        }
    }
}

#[kernel]
fn only_scalars(n: u32, scale: f32) {
    let _ = n as f32 * scale;
}

use outer::inner::spin as renamed;

#[allow(dead_code)]
fn launches() -> cudajit::Result<()> {
    #[kernel]
    fn local(x: &mut [f32]) {
        x[grid(1)] = 1.0;
    }

    let mut x = vec![0.0f32; 16];
    launch!(only_scalars[1, 1](3, 1.0))?;
    launch!(outer::inner::spin[1, 1](3, 1.0, &mut x))?;
    launch!(renamed[1, 1](3, 1.0, &mut x))?;
    launch!(self::outer::inner::spin[1, 1](3, 1.0, &mut x))?;
    launch!(outer::inner::tile::<f32, 16>[1, 16](&mut x))?;
    launch!(local[1, 16](&mut x))?;
    outer::inner::spin::launch(LaunchConfig::new(1, 1), 3, 1.0, &mut x)?;
    only_scalars::launch(LaunchConfig::new(1, 1), 3, 1.0)?;
    outer::inner::tile::launch::<f32, 16>(LaunchConfig::new(1, 16), &mut x)?;
    let _ = local::source().text;
    let _ = renamed::source().name;
    let _ = outer::inner::tile::max_cooperative_grid_blocks::<f32, 16>(16u32)?;
    Ok(())
}

cudajit::instantiate!(outer::inner::tile::<f64, 8>);

fn main() {
    assert_eq!(only_scalars::source().name, "only_scalars");
    assert_eq!(<outer::inner::spin>::source().name, "spin");
}
