//! The crate's imports run one way: every top-level module sits in a layer and uses only
//! modules of lower layers (so there is no circle). Read from the source text: every
//! `crate::NAME` outside comments in `src/NAME.rs` or `src/NAME/**.rs`. docs/ARCHITECTURE.md
//! draws the same layers; `cargo test --release --test cpu architecture:: -- --nocapture` prints the edges.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Lowest first. A module may use modules of lower layers only.
const LAYERS: &[&[&str]] = &[
    // the model's constants, the device, GPU batches submitted one ahead
    &["physics", "gpu", "signals", "files", "progress", "ahead", "cells"],
    // shader files, composer, reflection
    &["wgsl"],
    // the simulation on the GPU: buffers, passes, instruments (knows no file format)
    &["sim"],
    // the CPU twin; scene files and their initial state; drawing particles
    &["reference", "scene", "render"],
    // measurements of a particle state
    &["probes", "export"],
    // a run's state on disk (written through export's atomic writer)
    &["checkpoint"],
    // whether a run is still physical (guards, bulk density, Mach number)
    &["health"],
    // headless runs, the benchmark
    &["headless", "bench", "offscreen"],
    // the physical validation cases (run headless)
    &["validation"],
    // the desktop app: shell, content, panel, automation
    &["app"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// `crate::NAME` uses in the code (not the comments) of one file.
fn uses(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let name: String = rest[at + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            // `crate::name!` is a macro the crate exports at its root, not a module
            let macro_call = rest[at + 7 + name.len()..].starts_with('!');
            if !name.is_empty() && !macro_call {
                out.insert(name);
            }
            rest = &rest[at + 7..];
        }
        // `use crate::{a, b}` lists
        if let Some(at) = code.find("crate::{") {
            for part in code[at + 8..].split([',', '}']) {
                let name: String = part.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// (from, to) → files that make the edge.
fn edges() -> BTreeMap<(String, String), Vec<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut out: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        for to in uses(&std::fs::read_to_string(&f).unwrap()) {
            if to != top {
                out.entry((top.clone(), to)).or_default().push(rel.display().to_string());
            }
        }
    }
    out
}

#[test]
fn every_module_is_in_a_layer() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: Vec<&str> = lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';')).collect();
    assert!(declared.len() >= 10, "read the module list of lib.rs: {declared:?}");
    for m in &declared {
        assert!(layer_of(m).is_some(), "src/lib.rs declares `{m}`, which no layer of tests/architecture.rs holds");
    }
    let all: Vec<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    for m in all {
        assert!(declared.contains(&m), "layer lists `{m}`, which src/lib.rs does not declare");
    }
}

#[test]
fn imports_run_down_only() {
    let edges = edges();
    assert!(edges.keys().any(|(f, t)| f == "app" && t == "sim"), "the scan found the app's use of sim");
    let mut wrong = Vec::new();
    for ((from, to), files) in &edges {
        let (lf, lt) = (layer_of(from).unwrap_or(usize::MAX), layer_of(to).unwrap_or(usize::MAX));
        let mark = if lt < lf { "" } else { "  <-- runs up or sideways" };
        println!("{from} (layer {lf}) -> {to} (layer {lt}){mark}");
        if lt >= lf {
            wrong.push(format!("{from} -> {to} ({})", files.join(", ")));
        }
    }
    assert!(wrong.is_empty(), "imports that do not run down:\n{}", wrong.join("\n"));
}

/// docs/ARCHITECTURE.md's edge list (`from -> a, b, c` lines) is the one the source has: a new
/// import, or one that went away, fails here until the list says so.
#[test]
fn the_documented_edges_are_the_real_ones() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md")).unwrap();
    let mut documented = BTreeSet::new();
    for line in doc.lines().filter(|l| l.starts_with("    ") && l.contains(" -> ")) {
        let (from, to) = line.trim().split_once(" -> ").unwrap();
        for t in to.split(',') {
            documented.insert((from.trim().to_string(), t.trim().to_string()));
        }
    }
    assert!(documented.len() >= 20, "read the edge list of docs/ARCHITECTURE.md: {documented:?}");
    let real: BTreeSet<(String, String)> = edges().into_keys().collect();
    let missing: Vec<String> = real.difference(&documented).map(|(f, t)| format!("{f} -> {t}")).collect();
    let stale: Vec<String> = documented.difference(&real).map(|(f, t)| format!("{f} -> {t}")).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/ARCHITECTURE.md's edge list is not the source's: add {missing:?}, remove {stale:?} \
         (`cargo test --release --test cpu architecture:: -- --nocapture` prints the edges)"
    );
}

#[test]
fn the_scan_sees_braced_and_plain_paths() {
    let u = uses(
        "use crate::{gpu::Gpu, sim};\nlet x = crate::scene::load(); // crate::app in a comment\n/// [`crate::render`]\ncrate::passes! {}\n",
    );
    assert_eq!(u.into_iter().collect::<Vec<_>>(), ["gpu", "scene", "sim"]);
}
