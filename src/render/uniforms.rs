//! The per-frame uniform block of the render shaders.
//!
//! [`FrameUniforms`] is defined once, in [`crate::wgsl::shared`], and its WGSL declaration generated
//! from that definition (the `frame_uniforms` module `shaders/render_common.wgsl` imports);
//! `tests/shaders.rs` and `tests/app.rs` check the generated layout against Rust's.

pub use crate::wgsl::shared::{COLORMAP_LEN, FrameUniforms};
