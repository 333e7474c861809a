//! Constants and closed-form functions of the model (docs/PHYSICS.md), written once and read by
//! the scene setup, the GPU passes (the WGSL sees them through the generated `constants` module,
//! see [`crate::wgsl`]), the CPU twin and the renderer.

/// γ of the Tait equation of state, p = B ((ρ/ρ0)^γ − 1).
pub const TAIT_GAMMA: i32 = 7;

/// Support radius h of the kernel in particle spacings.
pub const SUPPORT_OVER_SPACING: f32 = 2.0;

/// The cubic spline's normalisation 8 / (π h³) for support radius h.
pub fn kernel_norm(h: f64) -> f64 {
    8.0 / (std::f64::consts::PI * h * h * h)
}

/// CFL number dt·c/h: how much of the support radius sound crosses in one step.
pub fn cfl(dt: f64, sound_speed: f64, h: f64) -> f64 {
    dt * sound_speed / h
}

/// Cubic spline W(r) for support radius h, in f64 (the formula of docs/PHYSICS.md).
pub fn cubic_w(r: f64, h: f64) -> f64 {
    let sigma = kernel_norm(h);
    let q = r / h;
    if q <= 0.5 {
        sigma * (6.0 * q * q * q - 6.0 * q * q + 1.0)
    } else if q <= 1.0 {
        sigma * 2.0 * (1.0 - q).powi(3)
    } else {
        0.0
    }
}

/// Tait pressure with negative pressure clamped away (the CPU side of `tait_pressure` in
/// `shaders/common.wgsl`).
pub fn tait_pressure(rho: f64, rho0: f64, stiffness: f64) -> f64 {
    stiffness * ((rho.max(rho0) / rho0).powi(TAIT_GAMMA) - 1.0)
}
