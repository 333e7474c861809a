//! Every shader parses and validates with naga (a typo fails `cargo test`, not a user's first
//! frame), and the Rust and WGSL layouts of the shared structs agree.

use rillet::sim::params::{Diagnostics, SimParams};
use rillet::sim::shader::{self, ALL};
use std::mem::{offset_of, size_of};

fn parse(src: &shader::ShaderSource) -> naga::Module {
    let text = src.assemble();
    let module = naga::front::wgsl::parse_str(&text).unwrap_or_else(|e| panic!("{}: {}", src.label, e.emit_to_string(&text)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {}", src.label, e.emit_to_string(&text)));
    module
}

#[test]
fn every_shader_validates() {
    for src in &ALL {
        let m = parse(src);
        assert!(!m.entry_points.is_empty(), "{} has no entry point", src.label);
    }
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
        kernel_norm, search_range, capacity, _pad0, _pad1, _pad2);
    assert_eq!(members, rust, "member names and offsets");
    assert_eq!(size as usize, size_of::<SimParams>(), "struct size");
}

#[test]
fn diagnostics_words_match_the_wgsl_array() {
    // count.wgsl and integrate.wgsl bind `diag` as array<atomic<u32>, 4>
    assert_eq!(size_of::<Diagnostics>(), 16);
    for src in [shader::COUNT, shader::INTEGRATE] {
        let text = src.assemble();
        assert!(text.contains("var<storage, read_write> diag: array<atomic<u32>, 4>"), "{}", src.label);
    }
    assert_eq!(offset_of!(Diagnostics, max_per_cell), 0);
    assert_eq!(offset_of!(Diagnostics, overflows), 4);
    assert_eq!(offset_of!(Diagnostics, wall_clamps), 8);
    assert_eq!(offset_of!(Diagnostics, non_finite), 12);
}
