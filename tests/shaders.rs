//! Every shader composes from its imports and validates with naga (a typo fails `cargo test`,
//! not a user's first frame), every pass binds its buffers by name, and the Rust and WGSL
//! layouts of the shared structs agree.

mod common;

use rillet::sim::params::{Diagnostics, SimParams};
use rillet::sim::shader::{self, ALL, KernelConfig, KernelError};
use rillet::sim::{Sim, SimOptions};
use rillet::wgsl;
use std::mem::{offset_of, size_of};

fn parse_text(label: &str, text: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(text).unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(text)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(text)));
    module
}

fn parse(src: &shader::ShaderSource) -> naga::Module {
    parse_text(src.label, &src.compose().unwrap_or_else(|e| panic!("{}: {e}", src.label)))
}

#[test]
fn every_shader_validates() {
    for src in &ALL {
        let m = parse(src);
        assert!(!m.entry_points.is_empty(), "{} has no entry point", src.label);
    }
}

/// Every file in shaders/ is known to the composer, and every shader composed with its imports
/// validates (the render shaders too), and every other file is imported by one.
#[test]
fn every_file_in_shaders_composes_and_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut on_disk: Vec<String> =
        std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()?.path().file_stem().map(|s| s.to_string_lossy().into_owned())).collect();
    on_disk.sort();
    let known: Vec<&str> = wgsl::FILES.iter().map(|f| f.0).collect();
    assert_eq!(on_disk, known, "shaders/ and wgsl::FILES list the same files");
    // files with entry points validate on their own; the pieces they import (e.g. neighbours.wgsl,
    // which calls the `visit` of the pass importing it) validate inside those
    let mut imported = std::collections::BTreeSet::new();
    for (name, text) in wgsl::FILES {
        if ["@compute", "@vertex", "@fragment"].iter().any(|a| text.contains(a)) {
            parse_text(name, &wgsl::compose(name).unwrap());
            imported.extend(wgsl::imports(text));
        }
    }
    for (name, text) in wgsl::FILES {
        let entry = ["@compute", "@vertex", "@fragment"].iter().any(|a| text.contains(a));
        assert!(entry || imported.contains(name), "shaders/{name}.wgsl has no entry point and no shader imports it");
    }
}

/// Every pass of the step and every instrument binds each of its buffers by WGSL name: a Sim
/// is created (every bind group of the step, with and without diagnostics, both orders) and
/// the instruments run.
#[test]
fn every_pass_binds_its_buffers_by_name() {
    let state = common::build(&common::small_drop());
    for (diagnostics, order) in [(true, rillet::sim::layout::CellOrder::Linear), (false, rillet::sim::layout::CellOrder::Morton)] {
        let options = SimOptions { diagnostics, order, ..SimOptions::default() };
        let mut sim = Sim::new(common::gpu(), &state, options).unwrap_or_else(|e| panic!("{e}"));
        sim.build_grid(false);
        sim.probe_neighbours().unwrap();
        sim.all_pairs_density(1).unwrap();
    }
    rillet::sim::instruments::copy_bandwidth(common::gpu()).unwrap();
}

/// A wrong name fails when the bind group is created, on a real device, and says which.
#[test]
fn a_wrong_binding_name_fails_at_creation() {
    let gpu = common::gpu();
    let d = &gpu.device;
    let kernel = shader::Kernel::new(d, &shader::INTEGRATE, KernelConfig { wg_size: 64, checks: false }, &[&[]]).unwrap();
    assert_eq!(kernel.binding_names().collect::<Vec<_>>(), ["params", "pos_mass", "vel_rho", "acc_in", "diag", "emitters", "emit_state"]);
    let buf = |size| shader::storage(d, "test", size);
    let (p, a, b, c, diag) = (
        d.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: size_of::<SimParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: false,
        }),
        buf(64),
        buf(64),
        buf(64),
        buf(32),
    );
    let (emitters, emit_state) = (buf(112), buf(272));
    let good = [
        ("params", &p),
        ("pos_mass", &a),
        ("vel_rho", &b),
        ("acc_in", &c),
        ("diag", &diag),
        ("emitters", &emitters),
        ("emit_state", &emit_state),
    ];
    kernel.bind(d, &good).expect("the right names bind");
    let mut wrong = good;
    wrong[3].0 = "acc_out"; // force.wgsl's name for the same buffer
    match kernel.bind(d, &wrong) {
        Err(KernelError::UnknownName { name, .. }) => assert_eq!(name, "acc_out"),
        other => panic!("expected UnknownName, got {other:?}"),
    }

    // a step's pass looks its names up in the simulation's table: a name the table lacks is an
    // error that names it, and so is an alias of a name the shader does not bind
    let pass = || shader::Pass::<shader::Single>::new(d, &shader::INTEGRATE, KernelConfig { wg_size: 64, checks: false }, &[]).unwrap();
    let mut table = shader::Named::default();
    for (name, buffer) in &good {
        table.add(name, buffer);
    }
    pass().bound_to(d, &table).expect("a full table binds");
    let mut short = shader::Named::default();
    for (name, buffer) in good.iter().filter(|(name, _)| *name != "acc_in") {
        short.add(name, buffer);
    }
    match pass().bound_to(d, &short) {
        Err(KernelError::MissingName { name, .. }) => assert_eq!(name, "acc_in"),
        other => panic!("expected MissingName, got {:?}", other.err()),
    }
    match pass().alias("acc_out", "acc_in").bound_to(d, &table) {
        Err(KernelError::UnknownName { name, .. }) => assert_eq!(name, "acc_out"),
        other => panic!("expected UnknownName, got {:?}", other.err()),
    }
    // an alias binds the table's buffer under the shader's name
    let mut renamed = shader::Named::default();
    for (name, buffer) in &good {
        renamed.add(if *name == "acc_in" { "acc" } else { name }, buffer);
    }
    pass().alias("acc_in", "acc").bound_to(d, &renamed).expect("the alias names the table's buffer");
}

/// (member name, offset) of a WGSL struct, and its size.
fn wgsl_struct(module: &naga::Module, name: &str) -> (Vec<(String, u32)>, u32) {
    for (_, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name)
            && let naga::TypeInner::Struct { members, span } = &ty.inner
        {
            return (members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect(), *span);
        }
    }
    panic!("struct {name} not found");
}

macro_rules! rust_offsets {
    ($t:ty; $($f:ident),* $(,)?) => {
        vec![$((stringify!($f).to_string(), offset_of!($t, $f) as u32)),*]
    };
}

#[test]
fn sim_params_layout_matches_wgsl() {
    let module = parse(&shader::DENSITY);
    let (members, size) = wgsl_struct(&module, "SimParams");
    let rust = rust_offsets!(SimParams;
        domain_min, n_particles, domain_max, n_fluid, gravity, dt, grid_origin, inv_cell_size,
        grid_dims, num_cells, h, rest_density, stiffness, sound_speed, viscosity, wall_viscosity,
        kernel_norm, search_range, capacity, open_faces, solver, adaptive, dt_min, dt_max, cfl,
        density_tolerance, divergence_tolerance, max_iterations, no_slip_viscosity, inv_h, h2, inv_rest_density, viscosity_scale,
        grad_scale, wall_approach_viscosity);
    assert_eq!(members, rust, "member names and offsets");
    assert_eq!(size as usize, size_of::<SimParams>(), "struct size");
}

/// The emitters' records and state, as emit_common.wgsl declares them (padding aside).
#[test]
fn emitter_layouts_match_wgsl() {
    use rillet::sim::emit::{EmitState, EmitterGpu};
    let module = parse(&shader::EMIT);
    let named = |v: Vec<(String, u32)>| v.into_iter().filter(|(n, _)| !n.starts_with("_pad")).collect::<Vec<_>>();
    let (members, size) = wgsl_struct(&module, "Emitter");
    let rust = rust_offsets!(EmitterGpu;
        velocity, mass, direction, step_length, center, zone, axis_u, half_u, axis_v, half_v,
        first_point, n_points, start_step, end_step, period);
    assert_eq!(named(members), rust, "Emitter: member names and offsets");
    assert_eq!(size as usize, size_of::<EmitterGpu>(), "Emitter: size");
    let (members, size) = wgsl_struct(&module, "EmitState");
    let rust = rust_offsets!(EmitState; step, n_emitters, phase, offset, count, late);
    assert_eq!(named(members), rust, "EmitState: member names and offsets");
    assert_eq!(size as usize, size_of::<EmitState>(), "EmitState: size");
}

#[test]
fn surface_uniforms_layout_matches_wgsl() {
    use rillet::render::surface::{SurfaceUniforms, source};
    let module = parse_text("render.surface.shade", &source("surface_shade"));
    let (members, size) = wgsl_struct(&module, "SurfaceUniforms");
    let rust = rust_offsets!(SurfaceUniforms;
        view, inv_view, proj, inv_proj, absorption, light_dir, backdrop, size, origin, n_particles,
        environment, radius, filter_world, filter_max_px, depth_sigma, floor_y, tile,
        thickness_unit, refraction, thickness_blur_px, spray_density);
    assert_eq!(members, rust, "member names and offsets");
    assert_eq!(size as usize, size_of::<SurfaceUniforms>(), "struct size");
}

#[test]
fn diagnostics_words_match_the_wgsl_array() {
    // count.wgsl, integrate.wgsl and emit_plan.wgsl bind `diag` as array<atomic<u32>, 16>
    assert_eq!(size_of::<Diagnostics>(), 64);
    for src in [shader::COUNT, shader::INTEGRATE, shader::EMIT_PLAN] {
        let text = src.compose().unwrap();
        assert!(text.contains("var<storage, read_write> diag: array<atomic<u32>, 16>"), "{}", src.label);
    }
    assert_eq!(offset_of!(Diagnostics, max_per_cell), 0);
    assert_eq!(offset_of!(Diagnostics, overflows), 4);
    assert_eq!(offset_of!(Diagnostics, wall_clamps), 8);
    assert_eq!(offset_of!(Diagnostics, non_finite), 12);
    assert_eq!(offset_of!(Diagnostics, outflow), 16);
    assert_eq!(offset_of!(Diagnostics, emitted), 20);
    assert_eq!(offset_of!(Diagnostics, starved), 24);
    assert_eq!(offset_of!(Diagnostics, free_slots), 28);
    assert_eq!(offset_of!(Diagnostics, dt), 32);
    assert_eq!(offset_of!(Diagnostics, time), 36);
    assert_eq!(offset_of!(Diagnostics, time_lo), 40);
    assert_eq!(offset_of!(Diagnostics, max_speed), 44);
    assert_eq!(offset_of!(Diagnostics, density_error), 48);
    assert_eq!(offset_of!(Diagnostics, pressure_iterations), 52);
    assert_eq!(offset_of!(Diagnostics, divergence_iterations), 56);
    assert_eq!(offset_of!(Diagnostics, solver_error), 60);
}
