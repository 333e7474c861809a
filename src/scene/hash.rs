//! The content hash a checkpoint carries: which scene — file and meshes — a run ran.
//!
//! It is taken over the bytes of the scene file and of every mesh file the scene reads, as they
//! are on disk: a resume with an edited scene or mesh is refused, and nothing depends on how a
//! parser or a serializer formats the scene (a hash over the scene written back as RON would
//! change with the `ron` crate's formatting and refuse every resume).

use super::Scene;
use std::path::Path;

/// FNV-1a, 64 bits, over `bytes` continued from `h` (the checkpoint's checksum is the same
/// function, `checkpoint::fnv1a`; a layer below it, the scene keeps its own four lines).
fn fnv1a_more(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The hash of the scene file `file` (as read now) and of the mesh files `scene` names, each
/// file's length before its bytes (so that bytes moved from one file to the next change it).
/// An error names the file that cannot be read.
pub fn scene_hash(file: &Path, scene: &Scene) -> anyhow::Result<u64> {
    let mut h = FNV_OFFSET;
    for path in std::iter::once(file).chain(scene.meshes.files.iter().map(|p| p.as_path())) {
        let bytes =
            std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: cannot read it for the scene's content hash: {e}", path.display()))?;
        h = fnv1a_more(h, &(bytes.len() as u64).to_le_bytes());
        h = fnv1a_more(h, &bytes);
    }
    Ok(h)
}

/// The hash that checkpoints written before [`scene_hash`] carry: FNV-1a over the scene written
/// back as RON and the meshes' vertices and triangles as read. Only to recognise those
/// checkpoints on a resume (`rillet run --resume` accepts them with a note).
pub(crate) fn legacy_scene_hash(scene: &Scene) -> u64 {
    let mut bytes = ron::to_string(scene).unwrap_or_default().into_bytes();
    for mesh in scene.meshes.fluid.iter().chain(&scene.meshes.solids).flatten() {
        for v in &mesh.vertices {
            bytes.extend(v.to_array().iter().flat_map(|c| c.to_le_bytes()));
        }
        bytes.extend(mesh.triangles.iter().flatten().flat_map(|i| i.to_le_bytes()));
    }
    fnv1a_more(FNV_OFFSET, &bytes)
}
