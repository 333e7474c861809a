//! Shared by the GPU tests: one device per test binary, on a real adapter (lavapipe in CI).
#![allow(dead_code)]

use rillet::gpu::Gpu;
use rillet::scene::Scene;
use rillet::scene::setup;
use rillet::sim::InitialState;
use rillet::sim::{Particles, Sim, SimOptions};
use std::sync::OnceLock;

/// The test device. Fails (never skips) when there is no adapter, saying how to get one.
pub fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        let _ = env_logger::builder().is_test(true).try_init();
        match Gpu::headless() {
            Ok(g) => {
                eprintln!("test adapter: {}", g.describe());
                g
            }
            Err(e) => panic!(
                "GPU tests need a real adapter and found none: {e}\n\
                 On a Linux machine without a GPU: apt-get install mesa-vulkan-drivers libvulkan1, \
                 then run with WGPU_BACKEND=vulkan."
            ),
        }
    })
}

pub fn scene(text: &str) -> Scene {
    Scene::parse(text, "test scene").expect("test scene is valid")
}

pub fn small_drop() -> Scene {
    Scene::load(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/small_drop.ron"))).expect("small_drop.ron")
}

pub fn sim(state: &InitialState, options: SimOptions) -> Sim {
    Sim::new(gpu(), state, options).expect("sim")
}

pub fn build(scene: &Scene) -> InitialState {
    setup::build(scene)
}

/// A GPU state as an initial state (so GPU and CPU can start from identical values): `base`
/// with the positions and velocities of `p`, by id.
pub fn snapshot(base: &InitialState, p: &Particles) -> InitialState {
    let p = p.by_id();
    InitialState { pos_mass: p.pos_mass, vel_rho: p.vel_rho, ..base.clone() }
}

/// A deterministic pseudo-random generator for test clouds (xorshift64*).
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    /// Uniform in [0, 1).
    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}
