//! The WGSL side of the house: every file of `shaders/` by name, the one composer that joins a
//! file with what it imports, and the reflection that reads a composed module's bindings by
//! name (so passes bind buffers by their WGSL variable names, never by position).
//!
//! **Imports.** A shader states what it uses in `// #import NAME` lines at its top (before its
//! first line of code), e.g. `// #import common` or `// #import neighbours`. [`compose`] puts
//! every imported file once, dependencies first, before the file itself; an unknown name or a
//! circle is an error that names the files. Imports are plain text joins: names stay as written,
//! so a reader of `force.wgsl` finds `params` in `common.wgsl`, `neighbour_loop` in
//! `neighbours.wgsl`.
//!
//! **Generated modules.** Some imports are no file but text generated from Rust, so what both
//! sides read has one definition. `constants` holds the model's constants ([`crate::physics`]).
//! The structs Rust uploads and WGSL reads (uniform blocks, storage records) are declared once
//! with [`structs::wgsl_struct!`], in [`shared`]: the macro declares the `#[repr(C)]` Pod struct
//! and, from the same field list and a Rust→WGSL type map (a field may state its WGSL type, e.g.
//! `atomic<u32>`), writes the WGSL `struct`; [`shared::MODULES`] serves them as `sim_params`
//! (`SimParams`), `frame_uniforms`, `surface_uniforms` and `emit_structs` (`Emitter`,
//! `EmitState`, `MAX_EMITTERS`). `tests/shaders.rs` compares naga's layout of each generated
//! struct (member offsets and sizes, struct size) with Rust's `offset_of!`/`size_of`.
//!
//! **Bindings.** Every resource of a pass is in `@group(0)`; binding numbers need only be unique
//! within one composed module (common.wgsl takes 0–1, neighbours.wgsl 2–3, a pass 4 and up by
//! habit). Rust never repeats them: [`bindings`] reads which globals an entry point uses, with
//! their number and access, and the pass names its buffers by those variable names.

pub mod shared;
pub mod structs;

use std::borrow::Cow;
use std::collections::BTreeSet;

/// Every shader file, by the name imports use (its file stem).
pub const FILES: &[(&str, &str)] = &[
    ("all_pairs", include_str!("../shaders/all_pairs.wgsl")),
    ("bodies_force", include_str!("../shaders/bodies_force.wgsl")),
    ("bodies_integrate", include_str!("../shaders/bodies_integrate.wgsl")),
    ("common", include_str!("../shaders/common.wgsl")),
    ("copy", include_str!("../shaders/copy.wgsl")),
    ("count", include_str!("../shaders/count.wgsl")),
    ("density", include_str!("../shaders/density.wgsl")),
    ("dfsph_control", include_str!("../shaders/dfsph_control.wgsl")),
    ("dfsph_factor", include_str!("../shaders/dfsph_factor.wgsl")),
    ("dfsph_source", include_str!("../shaders/dfsph_source.wgsl")),
    ("dfsph_store", include_str!("../shaders/dfsph_store.wgsl")),
    ("dfsph_update", include_str!("../shaders/dfsph_update.wgsl")),
    ("emit", include_str!("../shaders/emit.wgsl")),
    ("emit_common", include_str!("../shaders/emit_common.wgsl")),
    ("emit_plan", include_str!("../shaders/emit_plan.wgsl")),
    ("flow", include_str!("../shaders/flow.wgsl")),
    ("force", include_str!("../shaders/force.wgsl")),
    ("integrate", include_str!("../shaders/integrate.wgsl")),
    ("keep", include_str!("../shaders/keep.wgsl")),
    ("lines", include_str!("../shaders/lines.wgsl")),
    ("lists", include_str!("../shaders/lists.wgsl")),
    ("lists_walk", include_str!("../shaders/lists_walk.wgsl")),
    ("lists_write", include_str!("../shaders/lists_write.wgsl")),
    ("neighbour_probe", include_str!("../shaders/neighbour_probe.wgsl")),
    ("neighbours", include_str!("../shaders/neighbours.wgsl")),
    ("predict", include_str!("../shaders/predict.wgsl")),
    ("probes", include_str!("../shaders/probes.wgsl")),
    ("rank_free", include_str!("../shaders/rank_free.wgsl")),
    ("render_common", include_str!("../shaders/render_common.wgsl")),
    ("reorder", include_str!("../shaders/reorder.wgsl")),
    ("scan", include_str!("../shaders/scan.wgsl")),
    ("scatter", include_str!("../shaders/scatter.wgsl")),
    ("sensors", include_str!("../shaders/sensors.wgsl")),
    ("solid_force", include_str!("../shaders/solid_force.wgsl")),
    ("solids", include_str!("../shaders/solids.wgsl")),
    ("solids_move", include_str!("../shaders/solids_move.wgsl")),
    ("sort_cells", include_str!("../shaders/sort_cells.wgsl")),
    ("sphere_common", include_str!("../shaders/sphere_common.wgsl")),
    ("spheres", include_str!("../shaders/spheres.wgsl")),
    ("spheres_shade", include_str!("../shaders/spheres_shade.wgsl")),
    ("sprites", include_str!("../shaders/sprites.wgsl")),
    ("surface_common", include_str!("../shaders/surface_common.wgsl")),
    ("surface_filter", include_str!("../shaders/surface_filter.wgsl")),
    ("surface_shade", include_str!("../shaders/surface_shade.wgsl")),
    ("surface_splat", include_str!("../shaders/surface_splat.wgsl")),
    ("time_step", include_str!("../shaders/time_step.wgsl")),
    ("wall_pressure", include_str!("../shaders/wall_pressure.wgsl")),
];

/// The generated module of model constants.
pub(crate) const CONSTANTS: &str = "constants";

fn constants_module() -> String {
    format!(
        "// Generated from src/physics.rs (src/wgsl.rs): the model's constants, defined once in Rust.\n\
         const TAIT_GAMMA: f32 = {:.1};\n\
         const SOLVER_WCSPH: u32 = {}u;\n\
         const SOLVER_DFSPH: u32 = {}u;\n\
         const DIVERGENCE_MIN_NEIGHBOURS: u32 = {}u;\n\
         const DT_GROWTH: f32 = {:?};\n\
         const FORCE_CONDITION: f32 = {:?};\n\
         const MAX_ERROR_FACTOR: f32 = {:?};\n\
         const WARM_PRESSURE_SHARE: f32 = {:?};\n\
         const WARM_DIVERGENCE_SHARE: f32 = {:?};\n\
         const DFSPH_RELAXATION: f32 = {:?};\n\
         const MIN_PRESSURE_ITERATIONS: u32 = {}u;\n\
         const MIN_DIVERGENCE_ITERATIONS: u32 = {}u;\n\
         const LIST_MAX: u32 = {}u;\n\
         const LIST_SPLIT_ROW: u32 = {}u;\n\
         const SUPPORT_OVER_SPACING: f32 = {:?};\n\
         const CONTACT_STIFFNESS: f32 = {:?};\n\
         const CONTACT_DAMPING: f32 = {:?};\n\
         const KEEP_TRAVEL: u32 = {}u;\n\
         const KEEP_MOVE: u32 = {}u;\n\
         const KEEP_OVERFLOW: u32 = {}u;\n\
         const KEEP_BUILDS: u32 = {}u;\n\
         const KEEP_KEPT: u32 = {}u;\n\
         const KEEP_SKIN: u32 = {}u;\n\
         const KEEP_OVERFLOWED: u32 = {}u;\n\
         const KEEP_LIVE: u32 = {}u;\n\
         const KEEP_ENTRIES: u32 = {}u;\n\
         const KEEP_FULL: u32 = {}u;\n\
         const KEEP_WORDS: u32 = {}u;\n\
         const KEEP_ARGS_WORDS: u32 = {}u;\n\
         const KEEP_WHEN_BUILD: u32 = {}u;\n\
         const KEEP_WHEN_LISTED: u32 = {}u;\n\
         const KEEP_WHEN_SKINNED: u32 = {}u;\n\
         const KEEP_WHEN_WITHIN_H: u32 = {}u;\n",
        crate::physics::TAIT_GAMMA as f32,
        crate::physics::SOLVER_WCSPH,
        crate::physics::SOLVER_DFSPH,
        crate::physics::DIVERGENCE_MIN_NEIGHBOURS,
        crate::physics::DT_GROWTH as f32,
        crate::physics::FORCE_CONDITION as f32,
        crate::physics::MAX_ERROR_FACTOR,
        crate::physics::WARM_PRESSURE_SHARE as f32,
        crate::physics::WARM_DIVERGENCE_SHARE as f32,
        crate::physics::DFSPH_RELAXATION as f32,
        crate::physics::MIN_PRESSURE_ITERATIONS,
        crate::physics::MIN_DIVERGENCE_ITERATIONS,
        crate::physics::NEIGHBOUR_LIST_MAX,
        crate::physics::LIST_SPLIT_ROW,
        crate::physics::SUPPORT_OVER_SPACING,
        crate::physics::CONTACT_STIFFNESS,
        crate::physics::CONTACT_DAMPING,
        crate::physics::keep::TRAVEL,
        crate::physics::keep::MOVE,
        crate::physics::keep::OVERFLOW,
        crate::physics::keep::BUILDS,
        crate::physics::keep::KEPT,
        crate::physics::keep::SKIN,
        crate::physics::keep::OVERFLOWED,
        crate::physics::keep::LIVE,
        crate::physics::keep::ENTRIES,
        crate::physics::keep::FULL,
        crate::physics::keep::WORDS,
        crate::physics::keep::ARGS_WORDS,
        crate::physics::keep::WHEN_BUILD,
        crate::physics::keep::WHEN_LISTED,
        crate::physics::keep::WHEN_SKINNED,
        crate::physics::keep::WHEN_WITHIN_H
    )
}

/// What makes a generated module's text.
pub(crate) type Generated = fn() -> String;

/// The names and makers of the generated modules: the constants, then the shared structs.
pub(crate) fn generated() -> impl Iterator<Item = (&'static str, Generated)> {
    [(CONSTANTS, constants_module as Generated)].into_iter().chain(shared::MODULES.iter().copied())
}

/// The text of one file or generated module.
pub fn source(name: &str) -> Option<Cow<'static, str>> {
    if let Some((_, make)) = generated().find(|(n, _)| *n == name) {
        return Some(Cow::Owned(make()));
    }
    FILES.iter().find(|(n, _)| *n == name).map(|(_, text)| Cow::Borrowed(*text))
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComposeError {
    #[error("shaders/{from}.wgsl imports `{name}`, which is no file of shaders/ and no generated module (known: {known})")]
    Unknown { from: String, name: String, known: String },
    #[error("shader imports run in a circle: {0}")]
    Circle(String),
}

/// The names a file imports, in order: `// #import NAME` lines before its first line of code.
pub fn imports(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("// #import ") {
            out.extend(rest.split(',').map(str::trim).filter(|s| !s.is_empty()));
        } else if !(line.is_empty() || line.starts_with("//")) {
            break;
        }
    }
    out
}

/// `name`'s file with everything it imports, each file once, dependencies first.
pub fn compose(name: &str) -> Result<String, ComposeError> {
    let mut order = Vec::new();
    visit(name, "", &mut Vec::new(), &mut BTreeSet::new(), &mut order)?;
    let mut out = String::new();
    for n in order {
        let text = source(n.as_str()).expect("visited names exist");
        out.push_str(&format!("// ---- {n} ----\n"));
        out.push_str(&text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

fn visit(name: &str, from: &str, path: &mut Vec<String>, done: &mut BTreeSet<String>, order: &mut Vec<String>) -> Result<(), ComposeError> {
    if done.contains(name) {
        return Ok(());
    }
    if path.iter().any(|p| p == name) {
        let mut circle = path.clone();
        circle.push(name.to_owned());
        return Err(ComposeError::Circle(circle.join(" → ")));
    }
    let text = source(name).ok_or_else(|| ComposeError::Unknown {
        from: from.to_owned(),
        name: name.to_owned(),
        known: FILES.iter().map(|f| f.0).chain(generated().map(|g| g.0)).collect::<Vec<_>>().join(", "),
    })?;
    path.push(name.to_owned());
    for dep in imports(&text) {
        visit(dep, name, path, done, order)?;
    }
    path.pop();
    done.insert(name.to_owned());
    order.push(name.to_owned());
    Ok(())
}

/// How a global is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Uniform,
    Read,
    ReadWrite,
}

/// One resource an entry point uses: its WGSL variable name, binding number (group 0) and access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Binding {
    pub name: String,
    pub binding: u32,
    pub access: Access,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReflectError {
    #[error("{label}: {message}")]
    Invalid { label: String, message: String },
    #[error("{label}: no entry point `{entry}`")]
    NoEntry { label: String, entry: String },
    #[error("{label}: `{name}` is in @group({group}); every resource must be in @group(0)")]
    Group { label: String, name: String, group: u32 },
}

/// The resources the entry points `entries` of `source` use (their union, by binding number):
/// what the pass's bind-group layout must hold and its bind group must name.
pub(crate) fn bindings(label: &str, source: &str, entries: &[&str]) -> Result<Vec<Binding>, ReflectError> {
    let invalid = |message: String| ReflectError::Invalid { label: label.to_owned(), message };
    let module = naga::front::wgsl::parse_str(source).map_err(|e| invalid(e.emit_to_string(source)))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|e| invalid(e.emit_to_string(source)))?;
    let mut out: Vec<Binding> = Vec::new();
    for entry in entries {
        let index = module
            .entry_points
            .iter()
            .position(|e| e.name == *entry)
            .ok_or_else(|| ReflectError::NoEntry { label: label.to_owned(), entry: (*entry).to_owned() })?;
        let uses = info.get_entry_point(index);
        for (handle, var) in module.global_variables.iter() {
            let Some(rb) = &var.binding else { continue };
            if uses[handle].is_empty() || out.iter().any(|b| b.binding == rb.binding) {
                continue;
            }
            let name = var.name.clone().unwrap_or_default();
            if rb.group != 0 {
                return Err(ReflectError::Group { label: label.to_owned(), name, group: rb.group });
            }
            let access = match var.space {
                naga::AddressSpace::Uniform => Access::Uniform,
                naga::AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => Access::ReadWrite,
                naga::AddressSpace::Storage { .. } => Access::Read,
                other => return Err(invalid(format!("`{name}` is bound in address space {other:?}, which passes do not use"))),
            };
            out.push(Binding { name, binding: rb.binding, access });
        }
    }
    out.sort_by_key(|b| b.binding);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_read_from_the_top_only() {
        let text = "// a pass\n// #import common\n// #import neighbours, constants\n\nfn f() {}\n// #import late\n";
        assert_eq!(imports(text), ["common", "neighbours", "constants"]);
    }

    #[test]
    fn every_file_composes_with_each_import_once_and_first() {
        for (name, _) in FILES {
            let text = compose(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let heads: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("// ---- ")).collect();
            let unique: BTreeSet<&&str> = heads.iter().collect();
            assert_eq!(unique.len(), heads.len(), "{name}: a file twice: {heads:?}");
            assert_eq!(heads.last().copied(), Some(format!("{name} ----").as_str()), "{name} comes last");
        }
        let force = compose("force").unwrap();
        let at = |n: &str| force.find(&format!("// ---- {n} ----")).unwrap();
        assert!(at("constants") < at("common") && at("common") < at("neighbours") && at("neighbours") < at("force"));
    }

    #[test]
    fn unknown_imports_and_circles_are_errors() {
        let mut order = Vec::new();
        let e = visit("no_such_file", "force", &mut Vec::new(), &mut BTreeSet::new(), &mut order).unwrap_err();
        assert!(matches!(e, ComposeError::Unknown { .. }), "{e}");
        assert!(e.to_string().contains("shaders/force.wgsl imports `no_such_file`"), "{e}");
        let mut path = vec!["a".to_owned(), "common".to_owned()];
        let e = visit("a", "common", &mut path, &mut BTreeSet::new(), &mut order).unwrap_err();
        assert_eq!(e, ComposeError::Circle("a → common → a".into()));
    }

    #[test]
    fn the_generated_constants_match_rust() {
        let c = source(CONSTANTS).unwrap();
        assert!(c.contains(&format!("const TAIT_GAMMA: f32 = {}.0;", crate::physics::TAIT_GAMMA)), "{c}");
    }

    #[test]
    fn generated_modules_are_no_files_and_are_imported() {
        let names: Vec<&str> = generated().map(|g| g.0).collect();
        assert_eq!(
            names,
            [
                CONSTANTS,
                "sim_params",
                "frame_uniforms",
                "surface_uniforms",
                "sphere_view",
                "emit_structs",
                "diagnostics",
                "scan_params",
                "motion_structs",
                "probe_config"
            ]
        );
        for name in &names {
            assert!(FILES.iter().all(|f| f.0 != *name), "`{name}` is a file and a generated module");
            assert!(FILES.iter().any(|f| imports(f.1).contains(name)), "no shader imports the generated `{name}`");
        }
        let common = compose("common").unwrap();
        assert!(common.contains("// ---- sim_params ----\n") && common.contains("struct SimParams {\n"), "{common}");
    }

    #[test]
    fn bindings_are_reflected_by_name_with_their_access() {
        let b = bindings("sph.force", &compose("force").unwrap(), &["main"]).unwrap();
        let names: Vec<(&str, Access)> = b.iter().map(|b| (b.name.as_str(), b.access)).collect();
        assert_eq!(
            names,
            [
                ("params", Access::Uniform),
                ("cell_lut", Access::Read),
                ("cell_start", Access::Read),
                ("sorted", Access::Read),
                ("pos_mass", Access::Read),
                ("vel_rho", Access::Read),
                ("acc_out", Access::ReadWrite),
                ("ids", Access::Read),
                ("wall_normal", Access::Read),
                ("wall_motion", Access::Read),
                ("nb_list", Access::Read),
                ("nb_count", Access::Read),
                ("nb_list_hi", Access::Read)
            ]
        );
    }
}
