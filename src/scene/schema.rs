//! The scene file's schema: the RON structure, its defaults and the meaning of every field
//! (ranges in [`super::limits`]).

use serde::{Deserialize, Serialize};

/// An axis-aligned box in metres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

/// How the Tait stiffness is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Pressure {
    /// c = 10·sqrt(2·|g|·H), H = height of the highest fluid top above the domain floor
    /// (10 × the fastest speed a column of that height reaches when it falls).
    Auto,
    /// Speed of sound c in m/s; B = ρ0 c² / 7.
    SpeedOfSound(f32),
    /// Tait stiffness B in Pa; c = sqrt(7 B / ρ0).
    Stiffness(f32),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Physics {
    /// Particle spacing in metres (the support radius h is twice this).
    pub spacing: f32,
    /// Rest density ρ0 in kg/m³.
    pub rest_density: f32,
    pub pressure: Pressure,
    /// Monaghan artificial viscosity α between fluid particles.
    pub viscosity: f32,
    /// Monaghan artificial viscosity α between fluid and wall particles (0 = free slip).
    pub wall_viscosity: f32,
    /// Gravity in m/s².
    pub gravity: [f32; 3],
    /// Time step in seconds.
    pub dt: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GridSettings {
    /// Cell size as a multiple of the support radius h.
    pub cell_size: f32,
    /// Per-cell occupancy above which a cell counts as overflowing (diagnostic).
    pub capacity: u32,
    /// Reorder particle state by cell every this many steps (0 = never).
    pub reorder_interval: u32,
    /// Morton (Z-order) cell order instead of linear.
    pub morton: bool,
    /// Compile the grid diagnostics (max per cell, overflows) into the count pass.
    pub diagnostics: bool,
    /// Order each cell's particles by id after the grid build, so every run of the scene gives
    /// the same bits (costs a pass; docs/PERFORMANCE.md).
    pub deterministic: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Walls {
    /// Layers of boundary particles behind each face of the domain.
    pub layers: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    #[serde(default)]
    pub name: String,
    /// The container: fluid stays inside; walls of boundary particles line its faces outside.
    pub domain: Aabb,
    /// Blocks filled with fluid particles on a cubic lattice of `physics.spacing`.
    pub fluid: Vec<Aabb>,
    #[serde(default)]
    pub physics: Physics,
    #[serde(default)]
    pub grid: GridSettings,
    #[serde(default)]
    pub walls: Walls,
}

impl Default for Physics {
    fn default() -> Self {
        Self {
            spacing: 0.02,
            rest_density: 1000.0,
            pressure: Pressure::Auto,
            viscosity: 0.05,
            wall_viscosity: 0.0,
            gravity: [0.0, -9.81, 0.0],
            dt: 4e-4,
        }
    }
}

impl Default for GridSettings {
    fn default() -> Self {
        // the simulation's own defaults, so a scene without a `grid` runs the measured fastest
        let o = crate::sim::SimOptions::default();
        Self {
            cell_size: o.cell_size,
            capacity: o.capacity,
            reorder_interval: o.reorder_interval,
            morton: o.order == crate::sim::layout::CellOrder::Morton,
            diagnostics: o.diagnostics,
            deterministic: o.deterministic,
        }
    }
}

impl Default for Walls {
    fn default() -> Self {
        Self { layers: 2 }
    }
}
