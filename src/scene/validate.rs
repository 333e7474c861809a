//! Checks a parsed scene against the allowed ranges ([`super::limits`]) and its geometry
//! (blocks inside the domain, no overlap, particle count), with errors that name the field.

use super::SceneError;
use super::lattice::{count_particles, lattice_count};
use super::limits::{self, Limit};
use super::schema::{Aabb, Pressure, Scene, Solid, Solver, TimeStep};
use crate::physics::SUPPORT_OVER_SPACING;

/// Hard cap on the particle count of a scene (fluid + boundary); device limits are checked
/// where the simulation is created.
pub const MAX_PARTICLES: u64 = 1 << 31;

/// Points of a lattice of spacing `s` over a shape's bounding box, one more per axis (a shape's
/// own lattice is centred in it): an upper bound of its particles and what sampling it visits.
fn bounds_lattice_points(shape: &super::geometry::Shape, s: f32) -> u128 {
    let (lo, hi) = shape.bounds();
    (0..3).map(|a| lattice_count(lo[a] as f32, hi[a] as f32, s) as u128 + 1).product()
}

/// Host bytes a lattice point of a fluid mesh takes to fill (a winding number, a flag, the
/// point) and of a solid mesh to sample its shell (a winding number, a flag).
const SAMPLE_BYTES_FILL: u128 = 4 + 1 + 24;
const SAMPLE_BYTES_SHELL: u128 = 4 + 1;

/// Slack when checking that fluid blocks lie inside the domain, in metres.
const INSIDE_TOLERANCE: f32 = 1e-5;

impl Scene {
    /// Checks every value against its allowed range; the first violation is returned.
    pub fn validate(&self, file: &str) -> Result<(), SceneError> {
        let v = Validator { file };
        self.check_numbers(&v)?;
        self.check_physics(&v)?;
        self.check_grid_and_domain(&v)?;
        self.check_fluid(&v)?;
        self.check_solids(&v)?;
        self.check_motions(file)?;
        self.check_probes(&v)?;
        Ok(())
    }

    /// The block and solid counts, then every float finite, before anything compares them.
    fn check_numbers(&self, v: &Validator) -> Result<(), SceneError> {
        let (p, g) = (&self.physics, &self.grid);
        // the block count first: everything after is per block
        if self.fluid.len() > limits::MAX_FLUID_BLOCKS {
            return Err(v.invalid(
                "fluid",
                format!("{} blocks", self.fluid.len()),
                &format!("at most {} blocks (merge neighbouring blocks)", limits::MAX_FLUID_BLOCKS),
            ));
        }

        // every float finite, before anything compares them
        for a in 0..3 {
            v.finite(&format!("domain.min[{a}]"), self.domain.min[a], "m")?;
            v.finite(&format!("domain.max[{a}]"), self.domain.max[a], "m")?;
        }
        if self.solids.len() > limits::MAX_SOLIDS {
            return Err(v.invalid("solids", format!("{} solids", self.solids.len()), &format!("at most {} solids", limits::MAX_SOLIDS)));
        }
        for (i, f) in self.fluid.iter().enumerate() {
            for a in 0..3 {
                if let Some(min) = f.min {
                    v.finite(&format!("fluid[{i}].min[{a}]"), min[a], "m")?;
                }
                if let Some(max) = f.max {
                    v.finite(&format!("fluid[{i}].max[{a}]"), max[a], "m")?;
                }
                v.finite(&format!("fluid[{i}].velocity[{a}]"), f.velocity[a], "m/s")?;
                v.finite(&format!("fluid[{i}].rotation[{a}]"), f.rotation[a], "degrees")?;
                v.finite(&format!("fluid[{i}].translation[{a}]"), f.translation[a], "m")?;
            }
            v.finite(&format!("fluid[{i}].scale"), f.scale, "")?;
        }
        for (i, solid) in self.solids.iter().enumerate() {
            for (name, value) in solid_numbers(solid) {
                v.finite(&format!("solids[{i}].{name}"), value, "")?;
            }
        }
        for (k, g) in self.probes.gauges.iter().enumerate() {
            v.finite(&format!("probes.gauges[{k}]"), *g, "m")?;
        }
        for (k, g) in self.probes.point_gauges.iter().enumerate() {
            v.finite(&format!("probes.point_gauges[{k}][0]"), g[0], "m")?;
            v.finite(&format!("probes.point_gauges[{k}][1]"), g[1], "m")?;
        }
        for (k, g) in self.probes.surface_gauges.iter().enumerate() {
            v.finite(&format!("probes.surface_gauges[{k}][0]"), g[0], "m")?;
            v.finite(&format!("probes.surface_gauges[{k}][1]"), g[1], "m")?;
        }
        for (k, s) in self.probes.sensors.iter().enumerate() {
            for a in 0..3 {
                v.finite(&format!("probes.sensors[{k}].at[{a}]"), s.at[a], "m")?;
            }
            v.finite(&format!("probes.sensors[{k}].fill_min"), s.fill_min, "")?;
            v.finite(&format!("probes.sensors[{k}].diameter"), s.diameter, "m")?;
            if let Some(n) = s.normal {
                for (a, c) in n.iter().enumerate() {
                    v.finite(&format!("probes.sensors[{k}].normal[{a}]"), *c, "")?;
                }
            }
        }
        for (k, f) in self.probes.flows.iter().enumerate() {
            for a in 0..3 {
                v.finite(&format!("probes.flows[{k}].at[{a}]"), f.at[a], "m")?;
                v.finite(&format!("probes.flows[{k}].normal[{a}]"), f.normal[a], "")?;
            }
            if let Some(size) = f.size {
                for (a, c) in size.iter().enumerate() {
                    v.finite(&format!("probes.flows[{k}].size[{a}]"), *c, "m")?;
                }
            }
        }
        for (k, f) in self.probes.forces.iter().enumerate() {
            if let Some(about) = f.about {
                for (a, c) in about.iter().enumerate() {
                    v.finite(&format!("probes.forces[{k}].about[{a}]"), *c, "m")?;
                }
            }
        }
        v.finite("physics.spacing", p.spacing, "m")?;
        v.finite("physics.rest_density", p.rest_density, "kg/m³")?;
        match p.pressure {
            Pressure::Auto => {}
            Pressure::SpeedOfSound(c) => v.finite("physics.pressure.SpeedOfSound", c, "m/s")?,
            Pressure::Stiffness(b) => v.finite("physics.pressure.Stiffness", b, "Pa")?,
        }
        v.finite("physics.viscosity", p.viscosity, "")?;
        v.finite("physics.wall_viscosity", p.wall_viscosity, "")?;
        v.finite("physics.wall_approach_viscosity", p.wall_approach_viscosity, "")?;
        v.finite("physics.no_slip_viscosity", p.no_slip_viscosity, "m²/s")?;
        for a in 0..3 {
            v.finite(&format!("physics.gravity[{a}]"), p.gravity[a], "m/s²")?;
        }
        v.finite("physics.dt", p.dt, "s")?;
        v.finite("grid.cell_size", g.cell_size, "× h")?;
        Ok(())
    }

    /// The physics: each value in its range, and the conditions between them (the no-slip walls' viscous dt, the adaptive range, DFSPH's tolerances).
    fn check_physics(&self, v: &Validator) -> Result<(), SceneError> {
        let p = &self.physics;
        // physics
        let s = p.spacing;
        v.limit("physics.spacing", s, &limits::SPACING)?;
        let rho0 = p.rest_density;
        v.limit("physics.rest_density", rho0, &limits::REST_DENSITY)?;
        match p.pressure {
            Pressure::Auto => {}
            Pressure::SpeedOfSound(c) => v.limit("physics.pressure.SpeedOfSound", c, &limits::SPEED_OF_SOUND)?,
            Pressure::Stiffness(b) => v.limit("physics.pressure.Stiffness", b, &limits::STIFFNESS)?,
        }
        v.limit("physics.viscosity", p.viscosity, &limits::VISCOSITY)?;
        v.limit("physics.wall_viscosity", p.wall_viscosity, &limits::VISCOSITY)?;
        v.limit("physics.wall_approach_viscosity", p.wall_approach_viscosity, &limits::VISCOSITY)?;
        v.limit("physics.no_slip_viscosity", p.no_slip_viscosity, &limits::NO_SLIP_VISCOSITY)?;
        if let Some(limit) = crate::physics::laminar_dt_limit(SUPPORT_OVER_SPACING as f64 * p.spacing as f64, p.no_slip_viscosity as f64)
            && p.dt as f64 > limit
        {
            return Err(v.invalid(
                "physics.dt",
                p.dt,
                &format!(
                    "(0, {limit:.4e}] s: the viscous condition of the no-slip walls, dt ≤ 0.125·(h/2)²/ν with ν = {} m²/s",
                    p.no_slip_viscosity
                ),
            ));
        }
        if p.no_slip_viscosity > 0.0 && p.solver == Solver::Dfsph {
            return Err(v.invalid(
                "physics.no_slip_viscosity",
                p.no_slip_viscosity,
                "0 with the DFSPH solver (its walls have no wall pass to extrapolate the velocity yet)",
            ));
        }
        for a in 0..3 {
            v.limit(&format!("physics.gravity[{a}]"), p.gravity[a], &limits::GRAVITY)?;
        }
        v.limit("physics.dt", p.dt, &limits::DT)?;
        if let TimeStep::Adaptive { min, max, cfl } = p.time_step {
            v.finite("physics.time_step.Adaptive.min", min, "s")?;
            v.finite("physics.time_step.Adaptive.max", max, "s")?;
            v.finite("physics.time_step.Adaptive.cfl", cfl, "")?;
            v.limit("physics.time_step.Adaptive.min", min, &limits::DT)?;
            v.limit("physics.time_step.Adaptive.max", max, &limits::DT)?;
            v.check("physics.time_step.Adaptive.max", max, max >= min, &format!("[{min}, 0.1] s (at least time_step.min)"))?;
            v.limit("physics.time_step.Adaptive.cfl", cfl, &limits::ADAPTIVE_CFL)?;
            v.check(
                "physics.dt",
                p.dt,
                p.dt >= min && p.dt <= max,
                &format!("[{min}, {max}] s (the adaptive range time_step.min..max: the first step takes dt)"),
            )?;
            if !self.emitters.is_empty() {
                return Err(v.invalid(
                    "physics.time_step",
                    "Adaptive",
                    "Fixed in a scene with emitters (an emitter's schedule counts steps of one dt)",
                ));
            }
        }
        if p.solver == Solver::Dfsph {
            let d = &p.dfsph;
            v.finite("physics.dfsph.tolerance", d.tolerance, "")?;
            v.finite("physics.dfsph.divergence_tolerance", d.divergence_tolerance, "")?;
            v.limit("physics.dfsph.tolerance", d.tolerance, &limits::DFSPH_TOLERANCE)?;
            v.limit("physics.dfsph.divergence_tolerance", d.divergence_tolerance, &limits::DFSPH_TOLERANCE)?;
            v.limit("physics.dfsph.max_iterations", d.max_iterations, &limits::DFSPH_ITERATIONS)?;
            v.finite("physics.dfsph.momentum", d.momentum, "")?;
            v.limit("physics.dfsph.momentum", d.momentum, &limits::DFSPH_MOMENTUM)?;
        }
        Ok(())
    }

    /// The grid, the walls and the domain's extent.
    fn check_grid_and_domain(&self, v: &Validator) -> Result<(), SceneError> {
        let g = &self.grid;
        let s = self.physics.spacing;
        // grid and walls
        v.limit("grid.cell_size", g.cell_size, &limits::CELL_SIZE)?;
        v.limit("grid.capacity", g.capacity, &limits::CAPACITY)?;
        v.limit("grid.reorder_interval", g.reorder_interval, &limits::REORDER_INTERVAL)?;
        v.limit("grid.list_skin", g.list_skin, &limits::LIST_SKIN)?;
        let layers = self.walls.layers;
        v.limit("walls.layers", layers, &limits::WALL_LAYERS)?;

        // domain
        let (dmin, dmax) = (self.domain.min, self.domain.max);
        for a in 0..3 {
            let extent = dmax[a] - dmin[a];
            let ok = extent >= 4.0 * s && extent <= 10000.0;
            let allowed = format!(
                "[{}, {}] m (domain.min[{a}] + 4·physics.spacing up to domain.min[{a}] + 10000 m)",
                dmin[a] + 4.0 * s,
                dmin[a] + 10000.0,
            );
            v.check(&format!("domain.max[{a}]"), dmax[a], ok, &allowed)?;
        }
        Ok(())
    }

    /// The fluid entries: a box or a mesh each, inside the domain, at least a spacing long, no two overlapping.
    fn check_fluid(&self, v: &Validator) -> Result<(), SceneError> {
        let s = self.physics.spacing;
        let (dmin, dmax) = (self.domain.min, self.domain.max);
        // fluid entries: a box or a mesh
        if self.fluid.is_empty() && self.emitters.is_empty() {
            return Err(v.invalid("fluid", "[]", "at least one block (or an emitter)"));
        }
        let mut blocks = Vec::new();
        let mut block_index = Vec::new();
        for (i, f) in self.fluid.iter().enumerate() {
            let kind = "either a box (min and max) or a mesh (mesh, with scale, rotation, translation)";
            match (f.min, f.max, &f.mesh) {
                (Some(_), Some(_), None) => {}
                (None, None, Some(_)) => {}
                (_, _, Some(_)) => return Err(v.invalid(&format!("fluid[{i}]"), "a box and a mesh", kind)),
                _ => return Err(v.invalid(&format!("fluid[{i}]"), "neither a complete box nor a mesh", kind)),
            }
            if f.mesh.is_some() {
                v.limit(&format!("fluid[{i}].scale"), f.scale, &limits::MESH_SCALE)?;
            } else if f.scale != 1.0 || f.rotation != [0.0; 3] || f.translation != [0.0; 3] {
                return Err(v.invalid(&format!("fluid[{i}]"), "a box with scale, rotation or translation", "those only with a mesh"));
            }
            for a in 0..3 {
                v.limit(&format!("fluid[{i}].rotation[{a}]"), f.rotation[a], &limits::ROTATION)?;
            }
            let Some(b) = f.block() else { continue };
            for a in 0..3 {
                let (lo, hi) = (dmin[a] - INSIDE_TOLERANCE, dmax[a] + INSIDE_TOLERANCE);
                let inside = format!("[{}, {}] m (inside domain.min[{a}]..domain.max[{a}])", dmin[a], dmax[a]);
                v.check(&format!("fluid[{i}].min[{a}]"), b.min[a], b.min[a] >= lo && b.min[a] <= hi, &inside)?;
                v.check(&format!("fluid[{i}].max[{a}]"), b.max[a], b.max[a] >= lo && b.max[a] <= hi, &inside)?;
                let above = format!("> fluid[{i}].min[{a}] = {} m", b.min[a]);
                v.check(&format!("fluid[{i}].max[{a}]"), b.max[a], b.max[a] > b.min[a], &above)?;
            }
            if (0..3).any(|a| lattice_count(b.min[a], b.max[a], s) == 0) {
                return Err(v.invalid(
                    &format!("fluid[{i}]"),
                    block(&b),
                    &format!("a block at least one physics.spacing ({s} m) long along every axis"),
                ));
            }
            blocks.push(b);
            block_index.push(i);
        }
        if let Some((i, j)) = first_overlap(&blocks) {
            let (b, c) = (&blocks[i], &blocks[j]);
            return Err(v.invalid(
                &format!("fluid[{}]", block_index[i]),
                block(b),
                &format!("no overlap with fluid[{}] = {} (blocks may touch)", block_index[j], block(c)),
            ));
        }
        Ok(())
    }

    /// The solids' sizes (the rest is checked on their shapes, after the meshes are read).
    fn check_solids(&self, v: &Validator) -> Result<(), SceneError> {
        let s = self.physics.spacing;
        // solids: sizes (the rest is checked on their shapes, after the meshes are read)
        let thinnest = 2.0 * s;
        for (i, solid) in self.solids.iter().enumerate() {
            let field = |name: &str| format!("solids[{i}].{name}");
            let thick = format!("≥ {thinnest} m (two spacings: a solid's shell must cover its surface)");
            match solid {
                Solid::Box { size, rotation, .. } => {
                    for a in 0..3 {
                        v.check(
                            &field(&format!("size[{a}]")),
                            size[a],
                            size[a] >= thinnest && size[a] <= 10000.0,
                            &format!("{thick}, at most 10000 m"),
                        )?;
                        v.limit(&field(&format!("rotation[{a}]")), rotation[a], &limits::ROTATION)?;
                    }
                }
                Solid::Sphere { radius, .. } => {
                    v.check(
                        &field("radius"),
                        radius,
                        *radius >= s && *radius <= 5000.0,
                        &format!("≥ {s} m (a diameter of two spacings), at most 5000 m"),
                    )?;
                }
                Solid::Cylinder { radius, height, rotation, .. } => {
                    v.check(
                        &field("radius"),
                        radius,
                        *radius >= s && *radius <= 5000.0,
                        &format!("≥ {s} m (a diameter of two spacings), at most 5000 m"),
                    )?;
                    v.check(&field("height"), height, *height >= thinnest && *height <= 10000.0, &format!("{thick}, at most 10000 m"))?;
                    for (a, r) in rotation.iter().enumerate() {
                        v.limit(&field(&format!("rotation[{a}]")), *r, &limits::ROTATION)?;
                    }
                }
                Solid::Mesh { scale, rotation, .. } => {
                    v.limit(&field("scale"), *scale, &limits::MESH_SCALE)?;
                    for (a, r) in rotation.iter().enumerate() {
                        v.limit(&field(&format!("rotation[{a}]")), *r, &limits::ROTATION)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The probes: gauges inside the domain.
    fn check_probes(&self, v: &Validator) -> Result<(), SceneError> {
        let (dmin, dmax) = (self.domain.min, self.domain.max);
        // probes
        for (k, g) in self.probes.gauges.iter().enumerate() {
            let inside = format!("[{}, {}] m (the domain along x)", dmin[0], dmax[0]);
            v.check(&format!("probes.gauges[{k}]"), g, *g >= dmin[0] && *g <= dmax[0], &inside)?;
        }
        for (k, g) in self.probes.point_gauges.iter().enumerate() {
            let inside = format!("x in [{}, {}] m and z in [{}, {}] m (the domain's floor)", dmin[0], dmax[0], dmin[2], dmax[2]);
            let ok = g[0] >= dmin[0] && g[0] <= dmax[0] && g[1] >= dmin[2] && g[1] <= dmax[2];
            v.check(&format!("probes.point_gauges[{k}]"), format!("({}, {})", g[0], g[1]), ok, &inside)?;
        }
        for (k, g) in self.probes.surface_gauges.iter().enumerate() {
            let inside = format!("x in [{}, {}] m and z in [{}, {}] m (the domain's floor)", dmin[0], dmax[0], dmin[2], dmax[2]);
            let ok = g[0] >= dmin[0] && g[0] <= dmax[0] && g[1] >= dmin[2] && g[1] <= dmax[2];
            v.check(&format!("probes.surface_gauges[{k}]"), format!("({}, {})", g[0], g[1]), ok, &inside)?;
        }
        v.check("probes.every", self.probes.every, self.probes.every <= 1_000_000_000, "at most 10⁹ steps")?;
        let sensors = &self.probes.sensors;
        v.check(
            "probes.sensors",
            sensors.len(),
            sensors.len() <= limits::MAX_SENSORS,
            &format!("at most {} sensors", limits::MAX_SENSORS),
        )?;
        for (k, s) in sensors.iter().enumerate() {
            let field = format!("probes.sensors[{k}].name");
            let good = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
            let ok = !s.name.is_empty() && s.name.len() <= 64 && s.name.chars().all(good);
            v.check(&field, format!("{:?}", s.name), ok, "1 to 64 of the characters A–Z, a–z, 0–9, `_`, `-`, `.`")?;
            if let Some(first) = sensors[..k].iter().position(|o| o.name == s.name) {
                v.check(&field, format!("{:?}", s.name), false, &format!("a name no other sensor has (probes.sensors[{first}] has it)"))?;
            }
            let inside = format!(
                "inside the domain: x in [{}, {}], y in [{}, {}], z in [{}, {}] m",
                dmin[0], dmax[0], dmin[1], dmax[1], dmin[2], dmax[2]
            );
            let ok = (0..3).all(|a| s.at[a] >= dmin[a] && s.at[a] <= dmax[a]);
            v.check(&format!("probes.sensors[{k}].at"), format!("({}, {}, {})", s.at[0], s.at[1], s.at[2]), ok, &inside)?;
            v.check(&format!("probes.sensors[{k}].fill_min"), s.fill_min, (0.01..=1.0).contains(&s.fill_min), "[0.01, 1]")?;
            v.check(&format!("probes.sensors[{k}].diameter"), s.diameter, (0.0..=1.0).contains(&s.diameter), "[0, 1] m (0: a point)")?;
            if s.diameter > 0.0 {
                let normal = s.normal.unwrap_or([0.0; 3]);
                let length = normal.iter().map(|c| c * c).sum::<f32>().sqrt();
                v.check(
                    &format!("probes.sensors[{k}].normal"),
                    format!("{:?}", s.normal),
                    length.is_finite() && length > 0.0,
                    "a direction (x, y, z) of non-zero length: a sensor with a diameter is a disc perpendicular to it",
                )?;
            }
        }
        let forces = &self.probes.forces;
        v.check(
            "probes.forces",
            forces.len(),
            forces.len() <= limits::MAX_FORCE_SENSORS,
            &format!("at most {} force sensors", limits::MAX_FORCE_SENSORS),
        )?;
        for (k, f) in forces.iter().enumerate() {
            let field = format!("probes.forces[{k}].name");
            let good = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
            let ok = !f.name.is_empty() && f.name.len() <= 64 && f.name.chars().all(good);
            v.check(&field, format!("{:?}", f.name), ok, "1 to 64 of the characters A–Z, a–z, 0–9, `_`, `-`, `.`")?;
            if let Some(first) = sensors.iter().position(|o| o.name == f.name) {
                v.check(&field, format!("{:?}", f.name), false, &format!("a name no other sensor has (probes.sensors[{first}] has it)"))?;
            }
            if let Some(first) = forces[..k].iter().position(|o| o.name == f.name) {
                v.check(&field, format!("{:?}", f.name), false, &format!("a name no other sensor has (probes.forces[{first}] has it)"))?;
            }
            let field = format!("probes.forces[{k}].solid");
            let n = self.solids.len();
            let allowed = match n {
                0 => "a solid's index in `solids`, which is empty".to_string(),
                _ => format!("a solid's index in `solids`: [0, {}]", n - 1),
            };
            v.check(&field, f.solid, f.solid < n, &allowed)?;
            v.check(
                &field,
                f.solid,
                !self.solids[f.solid].moves(),
                "a solid without `motion` or `floating` (a moving solid's force is in bodies.csv)",
            )?;
            if let Some(first) = forces[..k].iter().position(|o| o.solid == f.solid) {
                v.check(&field, f.solid, false, &format!("a solid no other force sensor measures (probes.forces[{first}] does)"))?;
            }
        }
        let flows = &self.probes.flows;
        v.check(
            "probes.flows",
            flows.len(),
            flows.len() <= limits::MAX_FLOW_SECTIONS,
            &format!("at most {} flow sections", limits::MAX_FLOW_SECTIONS),
        )?;
        for (k, f) in flows.iter().enumerate() {
            let field = format!("probes.flows[{k}].name");
            let good = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
            let ok = !f.name.is_empty() && f.name.len() <= 64 && f.name.chars().all(good);
            v.check(&field, format!("{:?}", f.name), ok, "1 to 64 of the characters A–Z, a–z, 0–9, `_`, `-`, `.`")?;
            let taken = sensors
                .iter()
                .position(|o| o.name == f.name)
                .map(|i| format!("probes.sensors[{i}]"))
                .or_else(|| forces.iter().position(|o| o.name == f.name).map(|i| format!("probes.forces[{i}]")))
                .or_else(|| flows[..k].iter().position(|o| o.name == f.name).map(|i| format!("probes.flows[{i}]")));
            if let Some(other) = taken {
                v.check(&field, format!("{:?}", f.name), false, &format!("a name no other sensor has ({other} has it)"))?;
            }
            let inside = format!(
                "inside the domain: x in [{}, {}], y in [{}, {}], z in [{}, {}] m",
                dmin[0], dmax[0], dmin[1], dmax[1], dmin[2], dmax[2]
            );
            let ok = (0..3).all(|a| f.at[a] >= dmin[a] && f.at[a] <= dmax[a]);
            v.check(&format!("probes.flows[{k}].at"), format!("({}, {}, {})", f.at[0], f.at[1], f.at[2]), ok, &inside)?;
            let length = f.normal.iter().map(|c| c * c).sum::<f32>().sqrt();
            v.check(
                &format!("probes.flows[{k}].normal"),
                format!("({}, {}, {})", f.normal[0], f.normal[1], f.normal[2]),
                length.is_finite() && length > 0.0,
                "a direction (x, y, z) of non-zero length",
            )?;
            if let Some(size) = f.size {
                let ok = size.iter().all(|c| *c > 0.0 && *c <= 1000.0);
                v.check(&format!("probes.flows[{k}].size"), format!("({}, {})", size[0], size[1]), ok, "(0, 1000] m each")?;
            }
        }
        let every = self.probes.sensor_every;
        v.check("probes.sensor_every", every, (1..=1_000_000).contains(&every), "[1, 1000000] steps")?;
        Ok(())
    }

    /// The particle count and what 32-bit floats carry (after the meshes are read: a mesh
    /// entry counts the lattice points of its bounding box, an upper bound).
    /// Sampling a mesh (to count or build its particles) takes a lattice over its bounding box,
    /// a winding number and a flag a point, and a fluid mesh's points: refused, naming the
    /// largest mesh, when that is more than `available` bytes (this machine's free memory).
    pub(crate) fn check_sampling_memory(&self, file: &str, available: Option<u64>) -> Result<(), SceneError> {
        let s = self.physics.spacing;
        let mesh_points = |shape: super::geometry::Shape| bounds_lattice_points(&shape, s);
        let sampling: Vec<(String, u128)> = (0..self.fluid.len())
            .filter(|&i| self.fluid[i].block().is_none())
            .map(|i| (format!("fluid[{i}]"), mesh_points(self.fluid_shape(i)) * SAMPLE_BYTES_FILL))
            .chain(
                (0..self.solids.len())
                    .filter(|&i| matches!(self.solids[i], super::schema::Solid::Mesh { .. }))
                    .map(|i| (format!("solids[{i}]"), mesh_points(self.solid_shape(i)) * SAMPLE_BYTES_SHELL)),
            )
            .collect();
        let total: u128 = sampling.iter().map(|(_, b)| b).sum();
        match (available, sampling.iter().max_by_key(|(_, b)| *b)) {
            (Some(available), Some((field, largest))) if total > available as u128 => {
                use super::setup::GIB;
                Err(Validator { file }.invalid(
                    field,
                    format!(
                        "a mesh whose lattice (spacing {s} m over its bounding box) takes {:.2} GiB to sample ({:.2} GiB for all the scene's meshes)",
                        *largest as f64 / GIB,
                        total as f64 / GIB
                    ),
                    &format!("what this machine's free memory holds ({:.2} GiB): increase physics.spacing or make the mesh smaller", available as f64 / GIB),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Checks the scene's particle count (and, before the count samples the meshes, that this
    /// machine has the memory to sample them).
    pub fn validate_count(&self, file: &str) -> Result<(), SceneError> {
        let v = Validator { file };
        let p = &self.physics;
        let s = p.spacing;
        let layers = self.walls.layers;
        let (dmin, dmax) = (self.domain.min, self.domain.max);
        // initial velocities against the speed of sound (which may depend on a mesh's height)
        let (c, _) = super::setup::resolve_pressure(self);
        for (i, f) in self.fluid.iter().enumerate() {
            let speed = glam::Vec3::from(f.velocity).length();
            if speed >= 0.5 * c {
                return Err(v.invalid(
                    &format!("fluid[{i}].velocity"),
                    vec3(f.velocity),
                    &format!(
                        "a speed below half the speed of sound, {:.4} m/s (c = {c:.4} m/s): weak compressibility holds only well below it",
                        0.5 * c
                    ),
                ));
            }
        }
        // particle count, first in u128 so that count_particles (u64) cannot overflow
        let n = |lo: f32, hi: f32| lattice_count(lo, hi, s) as u128;
        // boxes exactly; a mesh by the lattice of its bounding box (an upper bound)
        let fluid: u128 = (0..self.fluid.len())
            .map(|i| match self.fluid[i].block() {
                Some(b) => (0..3).map(|a| n(b.min[a], b.max[a])).product::<u128>(),
                None => bounds_lattice_points(&self.fluid_shape(i), s),
            })
            .sum();
        let t = layers as f32 * s;
        let outer: u128 = (0..3).map(|a| n(dmin[a] - t, dmax[a] + t)).product();
        let inner: u128 = (0..3).map(|a| n(dmin[a], dmax[a])).product();
        // a solid by the lattice of its bounding box (an upper bound)
        let solids: u128 = (0..self.solids.len()).map(|i| bounds_lattice_points(&self.solid_shape(i), s)).sum();
        // the count below samples the meshes: first, that this machine has the memory for it
        self.check_sampling_memory(file, super::setup::available_host_memory())?;
        let (fluid, boundary) = if fluid + outer.saturating_sub(inner) + solids > MAX_PARTICLES as u128 {
            (fluid, outer.saturating_sub(inner) + solids)
        } else {
            if solids > super::bodies::LOAD_NOTE_POINTS as u128 {
                log::info!(target: "rillet::load", "{file}: sampling the solids' shells over their lattices ({solids} points)");
            }
            let (f, b) = count_particles(self);
            (f as u128, b as u128)
        };
        if fluid + boundary > MAX_PARTICLES as u128 {
            return Err(v.invalid(
                "particles",
                format!("{} (fluid {fluid} + boundary {boundary})", fluid + boundary),
                &format!("at most 2^31 = {MAX_PARTICLES} in all: increase physics.spacing or shrink the domain, the fluid or walls.layers"),
            ));
        }
        // what f32 carries: positions far from the origin, masses and kernels of tiny particles
        let reach = (0..3).map(|a| dmin[a].abs().max(dmax[a].abs()) as f64 + layers as f64 * s as f64).fold(0.0, f64::max);
        // the gap between neighbouring f32 values at the farthest coordinate
        let ulp = ((reach as f32).next_up() as f64 - (reach as f32) as f64).max(f32::MIN_POSITIVE as f64);
        let min_spacing = ulp * limits::POSITION_RESOLUTION;
        if (s as f64) < min_spacing {
            return Err(v.invalid(
                "physics.spacing",
                s,
                &format!(
                    "≥ {min_spacing:.3e} m here: 32-bit positions near |x| = {reach} m are {ulp:.3e} m apart, and a step must resolve 1/{} of the spacing (move the domain nearer the origin or increase the spacing)",
                    limits::POSITION_RESOLUTION
                ),
            ));
        }
        let (sd, h) = (s as f64, SUPPORT_OVER_SPACING as f64 * s as f64);
        let mass = p.rest_density as f64 * sd * sd * sd;
        let kernel_norm = crate::physics::kernel_norm(h);
        if mass < limits::F32_SMALLEST_SAFE || kernel_norm > 1.0 / limits::F32_SMALLEST_SAFE {
            return Err(v.invalid(
                "physics.spacing",
                s,
                &format!(
                    "a spacing whose particle mass ρ0·s³ (here {mass:.3e} kg) is at least {:e} kg and whose kernel 8/(π h³) (here {kernel_norm:.3e} m⁻³) is at most {:e}: 32-bit floats do not carry smaller ones",
                    limits::F32_SMALLEST_SAFE,
                    1.0 / limits::F32_SMALLEST_SAFE
                ),
            ));
        }
        // stability: sound must not cross the support radius in one step (CFL), nor may gravity
        // carry a particle from rest across it; beyond these no explicit step is stable
        let (c, _) = super::setup::resolve_pressure(self);
        let c = c as f64;
        let cfl = crate::physics::cfl(p.dt as f64, c, h);
        // (DFSPH has no sound: its pressure is solved for, not carried by waves)
        if cfl > limits::CFL_MAX && p.solver == Solver::Wcsph {
            return Err(v.invalid(
                "physics.dt",
                p.dt,
                &format!(
                    "(0, {:.4e}] s: beyond it sound crosses more than the support radius in a step (CFL: dt·c/h ≤ {} with c = {c:.4} m/s, h = {} m; here {cfl:.3}), and no step is stable; dt ≤ {:.4e} s (CFL {}) is recommended",
                    limits::CFL_MAX * h / c,
                    limits::CFL_MAX,
                    h as f32,
                    limits::CFL_RECOMMENDED * h / c,
                    limits::CFL_RECOMMENDED
                ),
            ));
        }
        let g = (p.gravity.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>()).sqrt();
        if g > 0.0 && p.dt as f64 > limits::FORCE_MAX * (h / g).sqrt() {
            return Err(v.invalid(
                "physics.dt",
                p.dt,
                &format!(
                    "(0, {:.4e}] s: beyond it gravity carries a particle from rest more than half the support radius in a step (force condition: dt ≤ {}·√(h/|g|) with |g| = {g:.4} m/s², h = {} m); dt ≤ {:.4e} s ({}·√(h/|g|)) is recommended",
                    limits::FORCE_MAX * (h / g).sqrt(),
                    limits::FORCE_MAX,
                    h as f32,
                    limits::FORCE_RECOMMENDED * (h / g).sqrt(),
                    limits::FORCE_RECOMMENDED
                ),
            ));
        }
        Ok(())
    }
}

/// The overlapping pair (later index first) with the smallest later index, by a sweep along x:
/// near-linear for blocks spread along x, where the all-pairs test took seconds for 100 000.
fn first_overlap(blocks: &[Aabb]) -> Option<(usize, usize)> {
    let overlap = |b: &Aabb, c: &Aabb| (0..3).all(|a| b.min[a] < c.max[a] - INSIDE_TOLERANCE && c.min[a] < b.max[a] - INSIDE_TOLERANCE);
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by(|&i, &j| blocks[i].min[0].total_cmp(&blocks[j].min[0]));
    let mut best: Option<(usize, usize)> = None;
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if blocks[j].min[0] >= blocks[i].max[0] - INSIDE_TOLERANCE {
                break;
            }
            if overlap(&blocks[i], &blocks[j]) {
                let pair = (i.max(j), i.min(j));
                if best.is_none_or(|b| pair < b) {
                    best = Some(pair);
                }
            }
        }
    }
    best
}

/// The numbers of a solid entry, by field name.
fn solid_numbers(solid: &Solid) -> Vec<(String, f32)> {
    let mut out = Vec::new();
    let mut v3 = |name: &str, v: [f32; 3]| out.extend((0..3).map(|a| (format!("{name}[{a}]"), v[a])));
    match solid {
        Solid::Box { center, size, rotation, .. } => {
            v3("center", *center);
            v3("size", *size);
            v3("rotation", *rotation);
        }
        Solid::Sphere { center, radius, .. } => {
            v3("center", *center);
            out.push(("radius".into(), *radius));
        }
        Solid::Cylinder { center, radius, height, rotation, .. } => {
            v3("center", *center);
            v3("rotation", *rotation);
            out.push(("radius".into(), *radius));
            out.push(("height".into(), *height));
        }
        Solid::Mesh { scale, rotation, translation, .. } => {
            v3("rotation", *rotation);
            v3("translation", *translation);
            out.push(("scale".into(), *scale));
        }
    }
    if let Some(m) = solid.motion() {
        out.extend(super::motion::motion_numbers(m).into_iter().map(|(name, v)| (format!("motion.{name}"), v)));
    }
    if let Some(f) = solid.floating() {
        out.extend(super::motion::floating_numbers(f).into_iter().map(|(name, v)| (format!("floating.{name}"), v)));
    }
    out
}

/// `(x, y, z)..(x, y, z)`, a block in messages.
fn block(b: &Aabb) -> String {
    format!("{}..{}", vec3(b.min), vec3(b.max))
}

fn vec3(v: [f32; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}

/// Builds [`SceneError::Invalid`]s for one file.
struct Validator<'a> {
    file: &'a str,
}

impl Validator<'_> {
    fn invalid(&self, field: &str, value: impl std::fmt::Display, allowed: &str) -> SceneError {
        SceneError::Invalid { file: self.file.to_owned(), field: field.to_owned(), value: value.to_string(), allowed: allowed.to_owned() }
    }

    fn check(&self, field: &str, value: impl std::fmt::Display, ok: bool, allowed: &str) -> Result<(), SceneError> {
        if ok { Ok(()) } else { Err(self.invalid(field, value, allowed)) }
    }

    fn limit<T: PartialOrd + Copy + limits::Shown>(&self, field: &str, value: T, limit: &Limit<T>) -> Result<(), SceneError> {
        self.check(field, value, limit.contains(value), &limit.allowed())
    }

    fn finite(&self, field: &str, value: f32, unit: &str) -> Result<(), SceneError> {
        let allowed = if unit.is_empty() { "a finite number".to_owned() } else { format!("a finite number of {unit}") };
        self.check(field, value, value.is_finite(), &allowed)
    }
}
