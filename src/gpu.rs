//! Adapter and device setup: the adapter's own limits, optional features only when present.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found ({0}).\n\
         Rillet needs a Vulkan, Metal or DX12 device. On Linux without a GPU install Mesa's CPU \
         Vulkan driver (lavapipe): `sudo apt-get install mesa-vulkan-drivers libvulkan1`, and \
         set WGPU_BACKEND=vulkan to pick it."
    )]
    NoAdapter(String),
    #[error("the GPU adapter {adapter} refused to create a device: {source}")]
    Device {
        adapter: String,
        #[source]
        source: wgpu::RequestDeviceError,
    },
    #[error("cannot create a drawing surface for the window: {0}")]
    Surface(#[from] wgpu::CreateSurfaceError),
}

/// The device and what it offers.
pub struct Gpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    /// Optional features that were present and enabled.
    pub features: wgpu::Features,
    pub limits: wgpu::Limits,
    /// The device's uncaptured errors so far: their count and the first one, in one line.
    errors: Arc<Mutex<(usize, Option<String>)>>,
}

/// The optional features Rillet uses when the adapter has them.
pub(crate) fn wanted_features() -> wgpu::Features {
    wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::SUBGROUP
}

/// wgpu's instance flags less `VALIDATION_INDIRECT_CALL` (outside Windows), before the
/// environment's `WGPU_*` variables apply (`WGPU_VALIDATION_INDIRECT_CALL=1` turns it back on).
/// That validation, on by default in release builds too, runs a small compute dispatch of wgpu's
/// before every indirect dispatch to clamp its arguments to the device's limits; it cost DFSPH's
/// solves a fifth of their time and the steps that keep the neighbour lists 5 % (H100,
/// docs/PERFORMANCE.md, "Indirect dispatches without wgpu's validation"). Every indirect
/// dispatch of the simulation reads arguments that its own one-invocation passes copy from full
/// dispatches the CPU computed within `max_compute_workgroups_per_dimension`
/// (`shader::grid_2d`), or zeros (dfsph.control, grid.keep), so there is nothing to clamp. On
/// Windows an adapter may be D3D12's, where without the validation `@builtin(num_workgroups)`
/// reads 0 in an indirect dispatch, which every per-particle pass uses: the flag stays there.
pub(crate) fn instance_flags(flags: wgpu::InstanceFlags) -> wgpu::InstanceFlags {
    if cfg!(target_os = "windows") { flags } else { flags - wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL }
}

impl Gpu {
    /// A device without a window. Vulkan, Metal, DX12 unless `WGPU_BACKEND` says otherwise;
    /// `WGPU_ADAPTER_NAME` picks an adapter by name.
    pub fn headless() -> Result<Self, GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::PRIMARY;
        desc.flags = instance_flags(desc.flags);
        let instance = wgpu::Instance::new(desc.with_env());
        let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(&instance, None))
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        Self::from_adapter(instance, adapter)
    }

    /// A device that can draw into `target` (a window), and the surface for it. Same backends,
    /// features and limits as [`Gpu::headless`]; the adapter must be able to present to the
    /// surface. `display` is the event loop's display handle (needed by GL and Wayland).
    pub(crate) fn windowed(
        display: Box<dyn wgpu::wgt::WgpuHasDisplayHandle>,
        target: impl Into<wgpu::SurfaceTarget<'static>>,
    ) -> Result<(Self, wgpu::Surface<'static>), GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_with_display_handle(display);
        desc.backends = wgpu::Backends::PRIMARY;
        desc.flags = instance_flags(desc.flags);
        let instance = wgpu::Instance::new(desc.with_env());
        let surface = instance.create_surface(target)?;
        let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(&instance, Some(&surface)))
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        Ok((Self::from_adapter(instance, adapter)?, surface))
    }

    pub(crate) fn from_adapter(instance: wgpu::Instance, adapter: wgpu::Adapter) -> Result<Self, GpuError> {
        let info = adapter.get_info();
        let features = adapter.features() & wanted_features();
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("rillet.device"),
            required_features: features,
            required_limits: limits.clone(),
            memory_hints: wgpu::MemoryHints::Performance,
            ..Default::default()
        }))
        .map_err(|source| GpuError::Device { adapter: info.name.clone(), source })?;
        let errors = install_error_logger(&device);
        log::info!("adapter: {} ({:?}, {:?}, driver {} {})", info.name, info.backend, info.device_type, info.driver, info.driver_info);
        Ok(Self { instance, adapter, device, queue, info, features, limits, errors })
    }

    /// The same device, seen as having `limits` (lower ones: to check what a scene does on a
    /// smaller device); its error count is shared.
    pub fn with_limits(&self, limits: wgpu::Limits) -> Gpu {
        Gpu {
            instance: self.instance.clone(),
            adapter: self.adapter.clone(),
            device: self.device.clone(),
            queue: self.queue.clone(),
            info: self.info.clone(),
            features: self.features,
            limits,
            errors: self.errors.clone(),
        }
    }

    /// The device's uncaptured errors (validation, out of memory) so far, and the first of them:
    /// work after one is not to be trusted, so a command that saw one must not report success.
    pub fn uncaptured_errors(&self) -> (usize, Option<String>) {
        self.errors.lock().map(|e| e.clone()).unwrap_or((1, Some("the error log's lock was poisoned".into())))
    }

    pub fn has_timestamps(&self) -> bool {
        self.features.contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// One line naming the adapter, for logs and reports.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?}, driver {} {})",
            self.info.name, self.info.backend, self.info.device_type, self.info.driver, self.info.driver_info
        )
    }

    /// Largest size one storage binding may have, in bytes.
    pub fn max_binding_bytes(&self) -> u64 {
        self.limits.max_storage_buffer_binding_size.min(self.limits.max_buffer_size)
    }
}

/// Logs each distinct uncaptured wgpu error once, not once per frame, and counts them all.
fn install_error_logger(device: &wgpu::Device) -> Arc<Mutex<(usize, Option<String>)>> {
    let seen: Mutex<HashSet<String>> = Mutex::new(HashSet::new());
    let errors = Arc::new(Mutex::new((0, None)));
    let count = errors.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        // one line: the description spans several ("Validation Error\n\nCaused by:\n  In …")
        let text = e.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        if let Ok(mut c) = count.lock() {
            c.0 += 1;
            c.1.get_or_insert_with(|| text.clone());
        }
        let first = seen.lock().map(|mut s| s.insert(text.clone())).unwrap_or(true);
        if first {
            log::error!("wgpu: {text}");
        }
    }));
    errors
}
