//! Colormaps for the particles and the legend: one table in Rust, uploaded to the uniform block
//! (linear RGB) and drawn by the panel (sRGB), so the legend shows exactly what the sprites use.

use super::uniforms::COLORMAP_LEN;

/// The colormaps the panel offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Colormap {
    /// Perceptually uniform, dark blue → yellow (for magnitudes: speed).
    Viridis,
    /// Diverging blue → white → red (for values around a reference: density, pressure).
    CoolWarm,
}

impl Colormap {
    /// sRGB colour at `t` in [0, 1] (clamped).
    pub(crate) fn srgb(self, t: f32) -> [f32; 3] {
        let t = t.clamp(0.0, 1.0);
        match self {
            Colormap::Viridis => viridis(t),
            Colormap::CoolWarm => cool_warm(t),
        }
    }

    /// The table the shader samples: [`COLORMAP_LEN`] linear-RGB entries.
    pub(crate) fn linear_table(self) -> [[f32; 4]; COLORMAP_LEN] {
        std::array::from_fn(|i| {
            let [r, g, b] = self.srgb(i as f32 / (COLORMAP_LEN - 1) as f32);
            [srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b), 1.0]
        })
    }
}

/// Polynomial fit of matplotlib's viridis (sRGB), degree 6.
fn viridis(t: f32) -> [f32; 3] {
    const C: [[f32; 3]; 7] = [
        [0.277_727_33, 0.005_407_344_5, 0.334_099_8],
        [0.105_093_04, 1.404_613_5, 1.384_590_2],
        [-0.330_861_83, 0.214_847_56, 0.095_095_16],
        [-4.634_230_5, -5.799_101, -19.332_441],
        [6.228_27, 14.179_933, 56.690_55],
        [4.776_385, -13.745_145, -65.353_03],
        [-5.435_456, 4.645_852_6, 26.312_435],
    ];
    std::array::from_fn(|k| C.iter().rev().fold(0.0, |acc, c| acc * t + c[k]).clamp(0.0, 1.0))
}

/// Moreland's cool-warm endpoints with a light grey middle, interpolated in sRGB.
fn cool_warm(t: f32) -> [f32; 3] {
    const COOL: [f32; 3] = [0.230, 0.299, 0.754];
    const MID: [f32; 3] = [0.865, 0.865, 0.865];
    const WARM: [f32; 3] = [0.706, 0.016, 0.150];
    let (a, b, s) = if t < 0.5 { (COOL, MID, t * 2.0) } else { (MID, WARM, t * 2.0 - 1.0) };
    std::array::from_fn(|k| a[k] + (b[k] - a[k]) * s)
}

pub(crate) fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_endpoints() {
        // matplotlib: viridis(0) = #440154, viridis(1) = #fde725
        let lo = viridis(0.0);
        let hi = viridis(1.0);
        let near = |a: [f32; 3], b: [u8; 3]| a.iter().zip(b).all(|(x, y)| (x - y as f32 / 255.0).abs() < 0.02);
        assert!(near(lo, [0x44, 0x01, 0x54]), "{lo:?}");
        assert!(near(hi, [0xfd, 0xe7, 0x25]), "{hi:?}");
    }

    #[test]
    fn tables_are_in_range() {
        for map in [Colormap::Viridis, Colormap::CoolWarm] {
            for e in map.linear_table() {
                assert!(e.iter().all(|c| (0.0..=1.0).contains(c)), "{map:?} {e:?}");
            }
        }
    }
}
