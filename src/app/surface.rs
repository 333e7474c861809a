//! The window's surface: its configuration (formats, present mode, copy support) and every
//! outcome of acquiring a frame, so that a lost surface, an outdated one, a timeout or an
//! occluded window never ends the program.

use super::screenshot::Screenshots;
use crate::gpu::Gpu;
use anyhow::Context as _;
use std::sync::Arc;
use winit::window::Window;

pub(crate) struct WindowSurface {
    surface: wgpu::Surface<'static>,
    pub config: wgpu::SurfaceConfiguration,
    /// The surface can be copied from (screenshots).
    pub capture: bool,
    /// Format of the view the scene pass draws into (sRGB; egui draws into `config.format`).
    pub scene_format: wgpu::TextureFormat,
}

/// What [`WindowSurface::acquire`] got.
pub(crate) enum Acquired {
    /// A frame to draw; `reconfigure`: configure again once it is presented (suboptimal).
    Frame { frame: wgpu::SurfaceTexture, reconfigure: bool },
    /// No frame this time; the surface was reconfigured or recreated: try again at once.
    Retry,
    /// No frame this time (timeout, occluded, validation error): try again a little later.
    Later,
}

impl WindowSurface {
    pub(crate) fn new(gpu: &Gpu, surface: wgpu::Surface<'static>, size: (u32, u32), vsync: bool) -> anyhow::Result<Self> {
        let mut config = surface
            .get_default_config(&gpu.adapter, size.0.max(1), size.1.max(1))
            .context("the adapter cannot present to this window's surface")?;
        let caps = surface.get_capabilities(&gpu.adapter);
        config.present_mode = if vsync { wgpu::PresentMode::AutoVsync } else { wgpu::PresentMode::AutoNoVsync };
        // The spheres are shaded in linear light and want an sRGB target; egui blends in gamma
        // space and wants a plain one. Both, where the surface allows an sRGB view of a plain
        // format; otherwise one sRGB format for both.
        let srgb = caps.formats.iter().copied().find(|f| f.is_srgb()).unwrap_or(config.format);
        let plain = srgb.remove_srgb_suffix();
        let capture = caps.usages.contains(wgpu::TextureUsages::COPY_SRC) && Screenshots::supports(srgb);
        if capture {
            config.usage |= wgpu::TextureUsages::COPY_SRC;
        } else {
            log::warn!("this surface ({srgb:?}) cannot be copied from: screenshots are unavailable");
        }
        config.format = srgb;
        if plain != srgb && caps.formats.contains(&plain) {
            let two = wgpu::SurfaceConfiguration { format: plain, view_formats: vec![srgb], ..config.clone() };
            let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
            surface.configure(&gpu.device, &two);
            match pollster::block_on(scope.pop()) {
                None => config = two,
                Some(e) => log::info!("no sRGB view of a {plain:?} surface here ({e}); egui draws into {srgb:?}"),
            }
        }
        let this = Self { surface, config, capture, scene_format: srgb };
        if size.0 > 0 && size.1 > 0 {
            this.surface.configure(&gpu.device, &this.config);
        }
        Ok(this)
    }

    /// Follows the window's size; a 0×0 window (minimized) keeps the old configuration, since
    /// a surface of no area cannot be configured.
    pub(crate) fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(device, &self.config);
    }

    pub(crate) fn size(&self) -> [u32; 2] {
        [self.config.width, self.config.height]
    }

    /// Configures again (after presenting a suboptimal frame).
    pub(crate) fn reconfigure(&self, device: &wgpu::Device) {
        self.surface.configure(device, &self.config);
    }

    /// The next frame, with every outcome of `get_current_texture` handled.
    pub(crate) fn acquire(&mut self, gpu: &Gpu, window: &Arc<Window>) -> Acquired {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => Acquired::Frame { frame, reconfigure: false },
            // draw this one, reconfigure once it is presented (not while it is held)
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => Acquired::Frame { frame, reconfigure: true },
            wgpu::CurrentSurfaceTexture::Outdated => {
                log::debug!("surface outdated: reconfiguring");
                self.surface.configure(&gpu.device, &self.config);
                Acquired::Retry
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                log::warn!("surface lost: recreating it");
                match gpu.instance.create_surface(window.clone()) {
                    Ok(s) => {
                        self.surface = s;
                        self.surface.configure(&gpu.device, &self.config);
                        Acquired::Retry
                    }
                    Err(e) => {
                        log::error!("cannot recreate the surface: {e}");
                        Acquired::Later
                    }
                }
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => Acquired::Later,
            wgpu::CurrentSurfaceTexture::Validation => {
                log::error!("surface texture: validation error (reported above); skipping the frame");
                Acquired::Later
            }
        }
    }
}
