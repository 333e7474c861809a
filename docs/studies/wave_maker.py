# Wave heights of a piston wave-maker run (`rillet run scenes/wave_flume.ron`) against linear
# wave-maker theory. For each surface gauge of probes.csv, the least-squares fit of
# c + a cos(wt) + b sin(wt) over whole periods from T1 on (w = 2 pi / T) gives the wave height
# H = 2 sqrt(a^2 + b^2), which is compared with H/S = 2 (cosh 2kd - 1) / (sinh 2kd + 2kd),
# w^2 = g k tanh kd (Dean & Dalrymple 1991, section 6.2), and with the full linear solution at the
# gauge's distance from the piston's mean face (FACE_X, default 0.08 m as in scenes/wave_flume.ron):
# the progressive wave plus the evanescent modes cos k_n (d + z) e^(-k_n x), w^2 = -g k_n tan k_n d,
# which matter within about two depths of the piston. Standard library only (and linear_waves.py
# beside it).
#   python3 docs/studies/wave_maker.py RUN_DIR PERIOD_S STROKE_M [DEPTH_M=0.4] [T1_S=6] [T2_S=10] [FACE_X=0.08]
import csv, math, sys

from linear_waves import G, fit as fit_at, piston_ratio, wavenumber

run, T, S = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
d = float(sys.argv[4]) if len(sys.argv) > 4 else 0.4
t1 = float(sys.argv[5]) if len(sys.argv) > 5 else 6.0
t2_max = float(sys.argv[6]) if len(sys.argv) > 6 else 10.0
face = float(sys.argv[7]) if len(sys.argv) > 7 else 0.08
g, w = G, 2 * math.pi / T
k = wavenumber(w, d)
ratio = piston_ratio(k, d)


def evanescent(n):
    """k_n of w^2 = -g k_n tan(k_n d), k_n d in ((n - 1/2) pi, n pi), by bisection."""
    lo, hi = (n - 0.5) * math.pi / d + 1e-12, n * math.pi / d - 1e-12
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        # f rises from -inf to w^2 > 0 over the interval
        if w * w + g * mid * math.tan(mid * d) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def full_height(x, modes=200):
    """The linear solution's wave height at distance x from the piston's mean face: the piston's
    velocity U cos(wt) (U = S w / 2) projected on the modes f_0 = cosh k(d + z), f_n = cos k_n(d + z);
    the surface's complex amplitude (i w / g) sum_n a_n f_n(0) e^(...), the height twice its modulus."""
    u = S * w / 2
    n0 = d / 2 + math.sinh(2 * k * d) / (4 * k)
    a0 = u * (math.sinh(k * d) / k) / n0 / k  # times 1/i: i k a0 N0 = U I0
    re, im = a0 * math.cosh(k * d) * math.sin(k * x), -a0 * math.cosh(k * d) * math.cos(k * x)
    for n in range(1, modes + 1):
        kn = evanescent(n)
        nn = d / 2 + math.sin(2 * kn * d) / (4 * kn)
        an = -u * (math.sin(kn * d) / kn) / nn / kn  # -k_n a_n N_n = U I_n
        re += an * math.cos(kn * d) * math.exp(-kn * x)
    # eta = (i w / g) Phi(x, 0): the modulus of (re + i im) times w / g
    return 2 * w / g * math.hypot(re, im)


def fit(ts, hs):
    return fit_at(w, ts, hs)


rows = list(csv.DictReader(open(f"{run}/probes.csv")))
times = [float(r["time_s"]) for r in rows]
periods = int((min(t2_max, times[-1]) - t1) / T)
t2 = t1 + periods * T
print(f"{run}: T = {T} s, S = {S} m, d = {d} m: k = {k:.3f} 1/m, wavelength {2 * math.pi / k:.3f} m, "
      f"theory H/S = {ratio:.3f}, H = {100 * ratio * S:.2f} cm; fit over {t1}-{t2:.2f} s ({periods} periods)")
for col in [c for c in rows[0] if c.startswith("height_m_at_surface_")]:
    sel = [(t, float(r[col])) for t, r in zip(times, rows) if t1 <= t < t2]
    (c, a, b), rms = fit([t for t, _ in sel], [h for _, h in sel])
    H = 2 * math.hypot(a, b)
    x = col[len("height_m_at_surface_x"):].split("_z")[0]
    full = full_height(float(x) - face)
    print(f"  x = {x} m: H = {100 * H:.2f} cm, H/S = {H / S:.3f} ({100 * (H / S / ratio - 1):+.1f} % of theory; "
          f"full solution at {float(x) - face:.2f} m from the face {100 * full:.2f} cm, {100 * (H / full - 1):+.1f} %), "
          f"mean level {c:.4f} m, residual rms {100 * rms:.2f} cm")
