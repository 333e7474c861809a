//! sph.force — pressure, viscosity, boundary and gravity into an acceleration
//! (`shaders/force.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{Kernel, KernelConfig, KernelError};

/// Variants: [`super::DIRECT`] (after a reorder) and [`super::THROUGH_SORTED`], with the Tait
/// pressure; the same plus [`VISCOUS_ONLY`] without it (DFSPH solves for the pressure).
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool) -> Result<Kernel, KernelError> {
    let r = if rows { 1.0 } else { 0.0 };
    Kernel::new(
        device,
        &super::shader::FORCE,
        cfg,
        &[
            &[("USE_SORTED", 0.0), ("ROWS", r), ("PRESSURE", 1.0)],
            &[("USE_SORTED", 1.0), ("ROWS", r), ("PRESSURE", 1.0)],
            &[("USE_SORTED", 0.0), ("ROWS", r), ("PRESSURE", 0.0)],
            &[("USE_SORTED", 1.0), ("ROWS", r), ("PRESSURE", 0.0)],
        ],
    )
}

/// Added to the variant: viscosity and gravity only.
pub const VISCOUS_ONLY: usize = 2;
