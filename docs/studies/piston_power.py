# The power a piston wave maker puts into the water (`rillet run` of a flume scene, its
# bodies.csv), against the energy flux of the wave linear wave-maker theory says it makes.
# The fluid's force on the piston, fx (bodies.csv), and the piston's velocity vx = (S/2) w cos(wt)
# (the scenes' Sine motion, x = (S/2) sin(wt)) give the power into the water, -(fx - mean fx) vx,
# averaged over whole periods from T1 on; in linear potential flow it equals the far field's
# energy flux (1/8) rho g H^2 c_g times the flume's width (the evanescent modes carry none), H the
# theory's height H/S = 2 (cosh 2kd - 1) / (sinh 2kd + 2kd) (Dean & Dalrymple
# 1991, section 6.2). Given the run's probes.csv (PROBES_CSV), the flux each
# surface gauge's wave carries ((1/8) rho g H^2 c_g w, H of the gauge's fit as in wave_maker.py)
# too. Also the first harmonic of fx: the part in phase with the velocity (the radiation
# damping, what makes the waves) and with the acceleration (the added mass). Standard library only
# (and linear_waves.py beside it).
#   python3 docs/studies/piston_power.py BODIES_CSV PERIOD_S STROKE_M WIDTH_M [DEPTH_M=0.4] [T1_S=4] [T2_S=7] [PROBES_CSV]
import csv, math, sys

from linear_waves import G, fit as fit_at, piston_ratio, wavenumber

bodies, T, S, width = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
d = float(sys.argv[5]) if len(sys.argv) > 5 else 0.4
t1 = float(sys.argv[6]) if len(sys.argv) > 6 else 4.0
t2_max = float(sys.argv[7]) if len(sys.argv) > 7 else 7.0
probes = sys.argv[8] if len(sys.argv) > 8 else None
g, rho, w = G, 1000.0, 2 * math.pi / T
k = wavenumber(w, d)
ratio = piston_ratio(k, d)
cg = w / k * 0.5 * (1 + 2 * k * d / math.sinh(2 * k * d))
h_theory = ratio * S


def flux(h):
    return rho * g * h * h / 8 * cg * width


# whole periods from t1, at most to t2_max
periods = int((t2_max - t1) / T + 1e-9)
t2 = t1 + periods * T
if periods < 1:
    sys.exit(f"{bodies}: the window {t1}-{t2_max} s holds no whole period of {T} s")


def fit(ts, ys):
    return fit_at(w, ts, ys)[0]


rows = [r for r in csv.DictReader(open(bodies)) if t1 <= float(r["time_s"]) < t2]
if len(rows) < 20:
    sys.exit(f"{bodies}: {len(rows)} rows in {t1}-{t2} s; the run is too short or the window wrong")
ts = [float(r["time_s"]) for r in rows]
fx = [float(r["fx_n"]) for r in rows]
u = S * w / 2  # x = S/2 sin(wt): v = U cos(wt), a = -U w sin(wt)
vx = [u * math.cos(w * t) for t in ts]
c, a, b = fit(ts, fx)
# the mean force (the hydrostatic push) does no work over whole periods: taken out, so that a
# sample more or less at the window's ends does not show as power
power = sum(-(f - c) * v for f, v in zip(fx, vx)) / len(rows)
print(f"T {T} s, S {S} m, d {d} m, width {width} m: kd {k * d:.3f}, c_g {cg:.3f} m/s, theory H {100 * h_theory:.2f} cm")
print(f"window {t1}-{t2} s ({periods} periods, {len(rows)} rows)")
print(f"power into the water, mean of -(fx - mean fx) vx: {power:.4f} W; the theory's flux {flux(h_theory):.4f} W "
      f"({100 * (power / flux(h_theory) - 1):+.1f} %; the height that flux carries "
      f"{100 * math.sqrt(max(power, 0) / flux(h_theory)) * h_theory:.2f} cm)")
print(f"fx's first harmonic: mean {c:.3f} N, in phase with the velocity {a:.4f} N (power -a U/2 = {-a * u / 2:.4f} W), "
      f"with the acceleration {-b:.4f} N (added mass {-b / (u * w):.3f} kg)")
if probes:
    pr = list(csv.reader(open(probes)))
    head = pr[0]
    cols = [i for i, n in enumerate(head) if n.startswith("height_m_at_surface_x")]
    body = [r for r in pr[1:] if t1 <= float(r[1]) < t2]
    pts = [float(r[1]) for r in body]
    for i in cols:
        x = float(head[i].split("_x")[1].split("_z")[0])
        cc, aa, bb = fit(pts, [float(r[i]) for r in body])
        h = 2 * math.hypot(aa, bb)
        print(f"gauge x {x:.2f} m: H {100 * h:.2f} cm, its flux {flux(h):.4f} W ({100 * (flux(h) / power - 1):+.1f} % of the piston's power)")
