// Shared by every simulation pass: the uniform block, the cell index, the kernel and the
// equation of state. Passes import it (src/wgsl.rs composes).
//
// #import constants, sim_params, diagnostics

@group(0) @binding(0) var<uniform> params: SimParams;
// Per-axis cell-order tables, concatenated (x, then y, then z): see src/sim/layout.rs.
@group(0) @binding(1) var<storage, read> cell_lut: array<u32>;

// Set from Rust (src/sim/shader.rs), one value for every pass.
override WG_SIZE: u32 = 128u;

// Dispatches larger than the per-dimension limit are split into 2D; this recovers the linear id.
fn linear_id(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * WG_SIZE + lid;
}

fn cell_coord(x: vec3<f32>) -> vec3<i32> {
    return vec3<i32>(floor((x - params.grid_origin) * params.inv_cell_size));
}

// The only place a cell coordinate becomes an index. Clamps into the grid (particles outside it
// land in the border cells), then maps through the order tables: linear and Morton orders are
// both a sum of one entry per axis (src/sim/layout.rs), which the neighbour loop uses to hoist
// the y and z parts out of its inner loops (`cell_part_*` below, on coordinates inside the grid).
fn cell_index(c: vec3<i32>) -> u32 {
    let g = params.grid_dims;
    let u = vec3<u32>(clamp(c, vec3<i32>(0), vec3<i32>(g) - vec3<i32>(1)));
    return cell_part_x(u.x) + cell_part_y(u.y) + cell_part_z(u.z);
}

fn cell_part_x(x: u32) -> u32 {
    return cell_lut[x];
}

fn cell_part_y(y: u32) -> u32 {
    return cell_lut[params.grid_dims.x + y];
}

fn cell_part_z(z: u32) -> u32 {
    return cell_lut[params.grid_dims.x + params.grid_dims.y + z];
}

// Cubic spline (Monaghan), support radius h; docs/PHYSICS.md. The loops work in q = r / h and
// leave the constant factors out of the sum (applied once per particle, not per neighbour):
//   W(r)          = kernel_norm * kernel_w_q(q)
//   dW/dr(r) / r  = kernel_norm * 6 / h^2 * kernel_grad_q(q)
fn kernel_w_q(q: f32) -> f32 {
    if q <= 0.5 {
        return 6.0 * q * q * (q - 1.0) + 1.0;
    }
    let a = max(1.0 - q, 0.0);
    return 2.0 * a * a * a;
}

// (dW/dr) / r without the factor kernel_norm * 6 / h^2: (3q - 2) below q = 1/2, -(1-q)^2 / q above
// (`inv_q` = 1 / q, which the caller has from an inverse square root).
fn kernel_grad_q(q: f32, inv_q: f32) -> f32 {
    if q <= 0.5 {
        return 3.0 * q - 2.0;
    }
    let a = max(1.0 - q, 0.0);
    return -a * a * inv_q;
}

// Tait equation, negative pressure clamped away. `inv_rho0` = 1 / rest density. The power x^γ
// is written out as multiplications (a pow() would cost the force loop, which calls this per
// neighbour); the assertion keeps it tied to the one γ of src/physics.rs.
const_assert TAIT_GAMMA == 7.0;
fn tait_pressure(rho: f32, inv_rho0: f32) -> f32 {
    let x = max(rho, params.rest_density) * inv_rho0;
    let x2 = x * x;
    return params.stiffness * (x2 * x2 * x2 * x - 1.0);
}

// Fixed-point scale of the error sums of sim.time_step and dfsph.source (2^20 per unit): a sum
// over a workgroup (at most 256 shares of at most 1) fits 32 bits, the total is kept in 64.
const ERROR_SCALE: f32 = 1048576.0;

// A workgroup's share of an error sum in fixed point (x at most WG_SIZE).
fn to_fixed(x: f32) -> u32 {
    return u32(x * ERROR_SCALE + 0.5);
}

// Whether adding v to a low word that held `old` carried into the high word.
fn carried(old: u32, v: u32) -> bool {
    return old > 0xffffffffu - v;
}

// The mean of a fixed-point sum (low and high words) over `count` shares (0 for none).
fn fixed_mean(lo: u32, hi: u32, count: u32) -> f32 {
    if count == 0u {
        return 0.0;
    }
    return (f32(hi) * 4294967296.0 + f32(lo)) / ERROR_SCALE / f32(count);
}
