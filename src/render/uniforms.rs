//! The per-frame uniform block of the render shaders.
//!
//! Kept in sync with `struct FrameUniforms` in `shaders/render_common.wgsl`; `tests/app.rs`
//! checks the size and every member offset against what naga reports for the WGSL struct.

use bytemuck::{Pod, Zeroable};

/// Entries of the colormap table in the uniform block.
pub const COLORMAP_LEN: usize = 64;

/// Uniform block shared by the sprite and box pipelines.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FrameUniforms {
    /// World → view (camera) space.
    pub view: [[f32; 4]; 4],
    /// View → clip space (depth 0..1).
    pub proj: [[f32; 4]; 4],
    /// Lower corner of the fluid domain.
    pub domain_min: [f32; 3],
    /// Sphere radius in metres (half the particle spacing).
    pub radius: f32,
    /// Upper corner of the fluid domain.
    pub domain_max: [f32; 3],
    /// 0 speed, 1 density, 2 pressure ([`super::ColorMode`]).
    pub color_mode: u32,
    /// Value mapped to the first colormap entry.
    pub range_lo: f32,
    /// Value mapped to the last colormap entry.
    pub range_hi: f32,
    /// ρ0, for the pressure.
    pub rest_density: f32,
    /// Tait stiffness B, for the pressure.
    pub stiffness: f32,
    /// 1: draw boundary particles, 0: hide them.
    pub show_boundary: u32,
    /// Entries used in `colormap`.
    pub colormap_len: u32,
    /// 1: draw fluid particles, 0: hide them (the surface view draws the walls alone).
    pub show_fluid: u32,
    pub _pad1: u32,
    /// Colour of the domain box lines (linear RGB).
    pub box_color: [f32; 4],
    /// Linear RGB colormap.
    pub colormap: [[f32; 4]; COLORMAP_LEN],
}

const _: () = assert!(std::mem::size_of::<FrameUniforms>() == 1232);
