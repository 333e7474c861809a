//! The sphere view by compute (render.spheres.splat, render.spheres.shade) against its CPU twin
//! (`rillet::render::spheres::splat_twin`): the same pixels covered, the same depths, the same
//! particle drawn at each pixel; the frame changed exactly where a sphere was splatted; no GPU
//! object made on a frame like the last.

use crate::common;

use common::gpu;
use rillet::offscreen::draw_frame;
use rillet::render::spheres::splat_twin;
use rillet::render::{Renderer, View, ViewSettings};
use rillet::sim::Sim;

const SIZE: (u32, u32) = (320, 240);

/// The small drop after `steps` deterministic steps, and the particles of its current set (the
/// order the splat's indices count in).
fn drop_after(steps: u32) -> (Sim, Vec<[f32; 4]>) {
    let scene = common::small_drop();
    let state = common::build(&scene);
    let options = rillet::sim::SimOptions { deterministic: true, ..rillet::scene::setup::sim_options(&scene) };
    let mut sim = common::sim(&state, options);
    let g = gpu();
    let mut encoder = g.device.create_command_encoder(&Default::default());
    sim.record_steps(&mut encoder, steps);
    g.queue.submit([encoder.finish()]);
    let p = sim.read_particles().expect("the particles read back");
    (sim, p.pos_mass)
}

fn settings(sim: &Sim, walls: bool, closer: f32) -> ViewSettings {
    let mut s = ViewSettings::new(sim.params(), SIZE.0 as f32 / SIZE.1 as f32);
    s.view = View::Spheres;
    s.show_box = false;
    s.show_boundary = walls;
    s.camera.distance *= closer;
    s
}

/// Splats one frame of `settings` and compares it with the twin; returns the pixels covered.
fn compare(renderer: &mut Renderer, sim: &Sim, pos_mass: &[[f32; 4]], settings: &ViewSettings, what: &str) -> usize {
    let g = gpu();
    let n = sim.n_particles();
    let empty = draw_frame(g, renderer, settings, sim.params(), Some((sim.current(), 0)), SIZE).unwrap();
    let frame = draw_frame(g, renderer, settings, sim.params(), Some((sim.current(), n)), SIZE).unwrap();
    let splat = renderer.sphere_splat(&g.device, &g.queue).expect("the sphere view ran");
    assert_eq!(splat.size, [SIZE.0, SIZE.1], "{what}: the splat has the viewport's size");
    let uniforms = settings.uniforms(sim.params(), SIZE.0 as f32 / SIZE.1 as f32);
    let twin = splat_twin(&uniforms, splat.size, &pos_mass[..n as usize]);
    let pixels = splat.ids.len();
    let (mut covered, mut cover_differs, mut id_differs, mut worst_depth) = (0, 0, 0, 0f32);
    let mut changed_without = 0;
    let mut unchanged_with = 0;
    for k in 0..pixels {
        let (gpu_on, cpu_on) = (splat.ids[k] != 0, twin.ids[k] != 0);
        assert_eq!(splat.ids[k] != 0, splat.depth[k] > 0.0, "{what}: pixel {k} has a particle without a depth or back");
        if gpu_on {
            covered += 1;
        }
        if gpu_on != cpu_on {
            cover_differs += 1;
            continue;
        }
        if gpu_on {
            // the same particle: the same ray cast; another one (a sphere the ray grazes, or two
            // at the same depth): counted
            if splat.ids[k] == twin.ids[k] {
                worst_depth = worst_depth.max((splat.depth[k] - twin.depth[k]).abs() / twin.depth[k]);
            } else {
                id_differs += 1;
            }
        }
        let moved = (0..3).any(|c| frame[4 * k + c] != empty[4 * k + c]);
        if gpu_on && !moved {
            unchanged_with += 1;
        }
        if !gpu_on && moved {
            changed_without += 1;
        }
    }
    eprintln!(
        "{what}: {covered} of {pixels} pixels covered; against the twin {cover_differs} differ in coverage, {id_differs} in the \
         particle, depths within {worst_depth:.2e}; {unchanged_with} covered pixels unchanged"
    );
    assert!(covered > 2000, "{what}: the spheres cover {covered} pixels");
    // a pixel whose ray grazes a sphere may round either way in the two (GPU and CPU f32 sums)
    assert!(cover_differs * 1000 <= covered, "{what}: {cover_differs} pixels covered by one of GPU and twin alone");
    assert!(worst_depth <= 1e-5, "{what}: depths differ by {worst_depth:e} (relative)");
    // a sphere the ray grazes, or two at the same depth, may be drawn either way
    assert!(id_differs * 1000 <= covered, "{what}: {id_differs} pixels draw another particle than the twin");
    assert_eq!(changed_without, 0, "{what}: pixels changed where no sphere was splatted");
    // a lit sphere's colour can equal the background only by chance
    assert!(unchanged_with * 100 <= covered, "{what}: {unchanged_with} covered pixels show the background");
    covered
}

#[test]
fn the_sphere_view_splats_as_its_cpu_twin() {
    let g = gpu();
    let mut renderer = Renderer::new(&g.device, rillet::offscreen::FORMAT);
    let (sim, pos_mass) = drop_after(0);
    let lattice = compare(&mut renderer, &sim, &pos_mass, &settings(&sim, false, 0.7), "the drop at rest");
    // the walls the eye does not look through, and a camera close enough to cut large spheres
    let walls = compare(&mut renderer, &sim, &pos_mass, &settings(&sim, true, 0.7), "with the walls");
    assert!(walls > lattice, "the walls add pixels ({walls} against {lattice})");
    compare(&mut renderer, &sim, &pos_mass, &settings(&sim, false, 0.15), "close up");
    let (sim, pos_mass) = drop_after(120);
    compare(&mut renderer, &sim, &pos_mass, &settings(&sim, false, 0.7), "the splash after 120 steps");
}

#[test]
fn sphere_frames_like_the_last_make_no_gpu_objects() {
    let g = gpu();
    let mut renderer = Renderer::new(&g.device, rillet::offscreen::FORMAT);
    let (sim, _) = drop_after(0);
    let s = settings(&sim, false, 0.7);
    let n = sim.n_particles();
    assert_eq!(renderer.sphere_objects_made(), 0);
    let mut made = 0;
    for size in [SIZE, (200, 150)] {
        draw_frame(g, &mut renderer, &s, sim.params(), Some((sim.current(), n)), size).unwrap();
        // the new size's buffers, and the particle set's bind groups with them
        assert_eq!(renderer.sphere_objects_made(), made + 2, "{size:?}: made on the resize");
        made += 2;
        for _ in 0..3 {
            draw_frame(g, &mut renderer, &s, sim.params(), Some((sim.current(), n)), size).unwrap();
        }
        assert_eq!(renderer.sphere_objects_made(), made, "{size:?}: frames of the same size make nothing");
        renderer.release_particles();
        draw_frame(g, &mut renderer, &s, sim.params(), Some((sim.current(), n)), size).unwrap();
        assert_eq!(renderer.sphere_objects_made(), made + 1, "{size:?}: one set of bind groups after a release");
        made += 1;
    }
    // no particles to draw and an empty viewport: nothing made, nothing fails
    draw_frame(g, &mut renderer, &s, sim.params(), None, SIZE).unwrap();
    assert_eq!(renderer.sphere_objects_made(), made + 1, "a new size (no particles: no bind groups)");
}
