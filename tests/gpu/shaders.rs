//! Every shader composes from its imports and validates with naga (a typo fails `cargo test`,
//! not a user's first frame), every pass binds its buffers by name, and the Rust and WGSL
//! layouts of the shared structs agree.

use crate::common;

use rillet::sim::params::{Diagnostics, SimParams};
use rillet::sim::shader::{self, ALL, KernelConfig, KernelError};
use rillet::sim::{Sim, SimOptions};
use rillet::wgsl;
use rillet::wgsl::structs::{Layout, Space, WgslStruct};
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
/// validates (the render shaders too), and every other file is imported by one, directly or
/// through another piece.
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
    // and what those pieces import in turn (lists_walk.wgsl, imported by both sides of the lists)
    loop {
        let more: Vec<&str> = wgsl::FILES
            .iter()
            .filter(|(name, _)| imported.contains(*name))
            .flat_map(|(_, text)| wgsl::imports(text))
            .filter(|n| !imported.contains(n))
            .collect();
        if more.is_empty() {
            break;
        }
        imported.extend(more);
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
    let kernel = shader::Kernel::new(d, &shader::INTEGRATE, KernelConfig::plain(64), &[&[]]).unwrap();
    assert_eq!(
        kernel.binding_names().collect::<Vec<_>>(),
        ["params", "pos_mass", "vel_rho", "acc_in", "diag", "emitters", "emit_state", "keep"]
    );
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
    let (emitters, emit_state, keep) = (buf(112), buf(272), buf(32));
    let good = [
        ("params", &p),
        ("pos_mass", &a),
        ("vel_rho", &b),
        ("acc_in", &c),
        ("diag", &diag),
        ("emitters", &emitters),
        ("emit_state", &emit_state),
        ("keep", &keep),
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
    let pass = || shader::Pass::<shader::Single>::new(d, &shader::INTEGRATE, KernelConfig::plain(64), &[]).unwrap();
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

/// (member name, offset, size) of a WGSL struct as naga lays it out, and the struct's size.
fn wgsl_struct(module: &naga::Module, name: &str) -> (Vec<(String, usize, usize)>, usize) {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    for (_, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name)
            && let naga::TypeInner::Struct { members, span } = &ty.inner
        {
            let members =
                members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset as usize, layouter[m.ty].size as usize)).collect();
            return (members, *span as usize);
        }
    }
    panic!("struct {name} not found");
}

/// The same of the Rust struct: `offset_of!` and `size_of` of every field (padding fields a
/// member per word), and `size_of` of the struct.
fn rust_struct(layout: &Layout) -> (Vec<(String, usize, usize)>, usize) {
    (layout.members.iter().map(|m| (m.name.clone(), m.offset, m.size)).collect(), layout.size)
}

fn assert_layout(module: &naga::Module, layout: &Layout, context: &str) {
    let (members, size) = wgsl_struct(module, layout.wgsl_name);
    let (rust, rust_size) = rust_struct(layout);
    assert_eq!(members, rust, "{context}: {}: member names, offsets and sizes", layout.wgsl_name);
    assert_eq!(size, rust_size, "{context}: {}: struct size", layout.wgsl_name);
}

/// The generated module of a shared struct bound as its shaders bind it (so naga applies the
/// layout rules of that address space).
fn probe(module: &str, layout: &Layout) -> String {
    let space = match layout.space {
        Space::Uniform => "uniform",
        Space::Storage => "storage, read_write",
    };
    format!("{}\n@group(0) @binding(0) var<{space}> probe: {};\n", wgsl::source(module).unwrap(), layout.wgsl_name)
}

/// Every struct Rust and WGSL share is generated from its Rust definition; naga's layout of the
/// generated WGSL, bound in its address space, is Rust's, member by member.
#[test]
fn every_shared_struct_has_the_rust_layout_in_wgsl() {
    let layouts = wgsl::shared::layouts();
    let names: Vec<&str> = layouts.iter().map(|(_, l)| l.rust_name).collect();
    assert_eq!(
        names,
        [
            "SimParams",
            "FrameUniforms",
            "SurfaceUniforms",
            "SphereView",
            "EmitterGpu",
            "EmitState",
            "Diagnostics",
            "ScanParams",
            "BodyMotion",
            "BodyState",
            "ProbeConfig"
        ]
    );
    for (module, layout) in &layouts {
        assert!(layout.members.len() >= 4, "{}: {:?}", layout.rust_name, layout.members);
        let text = probe(module, layout);
        assert_layout(&parse_text(module, &text), layout, module);
    }
    // the probe applies the uniform rules: a uniform array of u32 (stride 4) is refused
    let bad = "struct Bad { a: u32, b: array<u32, 3>, }\n@group(0) @binding(0) var<uniform> probe: Bad;\n";
    let module = naga::front::wgsl::parse_str(bad).unwrap();
    let flags = naga::valid::ValidationFlags::all();
    assert!(naga::valid::Validator::new(flags, naga::valid::Capabilities::all()).validate(&module).is_err());
}

/// The shaders that bind the shared structs declare them as generated (imported, not copied).
#[test]
fn the_shaders_bind_the_generated_structs() {
    use rillet::render::surface::{SurfaceUniforms, source};
    use rillet::render::uniforms::FrameUniforms;
    use rillet::sim::emit::{EmitState, EmitterGpu};
    assert_layout(&parse(&shader::DENSITY), &SimParams::layout(), "sim.density");
    let emit = parse(&shader::EMIT);
    assert_layout(&emit, &EmitterGpu::layout(), "emit.write");
    assert_layout(&emit, &EmitState::layout(), "emit.write");
    assert_layout(&parse_text("render.surface.shade", &source("surface_shade")), &SurfaceUniforms::layout(), "render.surface.shade");
    assert_layout(&parse_text("render.sprites", &rillet::render::sprites_source()), &FrameUniforms::layout(), "render.sprites");
    for file in ["spheres", "spheres_shade"] {
        let text = parse_text(file, &source(file));
        assert_layout(&text, &FrameUniforms::layout(), file);
        assert_layout(&text, &rillet::render::spheres::SphereView::layout(), file);
    }
    for file in ["common", "render_common", "surface_common", "sphere_common", "emit_common"] {
        let text = wgsl::source(file).unwrap();
        assert!(!text.contains("struct "), "shaders/{file}.wgsl declares a struct of its own: the shared ones are generated");
    }
}

#[test]
fn diagnostics_words_match_the_wgsl_array() {
    // the passes that write diagnostics bind `diag` as an array of DIAG_WORDS atomic words and
    // name each word by its generated constant, never by a number
    assert_eq!(size_of::<Diagnostics>(), 64);
    let words = wgsl::source("diagnostics").unwrap();
    assert!(words.contains("const DIAG_WORDS: u32 = 16u;"), "{words}");
    assert!(words.contains("const DIAG_DT: u32 = 8u;") && words.contains("const DIAG_SOLVER_ERROR: u32 = 15u;"), "{words}");
    for src in [shader::SCAN, shader::INTEGRATE, shader::EMIT_PLAN, shader::TIME_STEP, shader::DFSPH_CONTROL] {
        let text = src.compose().unwrap();
        assert!(text.contains("var<storage, read_write> diag: array<atomic<u32>, DIAG_WORDS>"), "{}", src.label);
        let own = wgsl::source(src.file).unwrap();
        let numbered = own.match_indices("diag[").filter(|(at, _)| own[at + 5..].starts_with(|c: char| c.is_ascii_digit())).count();
        assert_eq!(numbered, 0, "{} indexes diag by number", src.label);
        assert!(own.contains("diag[DIAG_"), "{} names its words", src.label);
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
