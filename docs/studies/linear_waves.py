# Linear water waves, shared by the wave-maker scripts (wave_maker.py, piston_power.py): the
# dispersion relation, the piston's transfer function (Dean & Dalrymple 1991, section 6.2) and the
# least-squares fit of a gauge's record at one frequency. Standard library only.
import math

G = 9.81


def wavenumber(w, d, g=G):
    """k of w^2 = g k tanh(kd), by Newton from the deep-water k."""
    k = w * w / g
    for _ in range(100):
        f = g * k * math.tanh(k * d) - w * w
        k -= f / (g * math.tanh(k * d) + g * k * d / math.cosh(k * d) ** 2)
    return k


def piston_ratio(k, d):
    """H/S of a piston wave maker far from it: 2 (cosh 2kd - 1) / (sinh 2kd + 2kd)."""
    return 2 * (math.cosh(2 * k * d) - 1) / (math.sinh(2 * k * d) + 2 * k * d)


def fit(w, ts, ys):
    """Least squares for y = c + a cos(wt) + b sin(wt): (c, a, b) and the residual rms."""
    basis = [[1.0, math.cos(w * t), math.sin(w * t)] for t in ts]
    m = [[sum(r[i] * r[j] for r in basis) for j in range(3)] for i in range(3)]
    v = [sum(r[i] * y for r, y in zip(basis, ys)) for i in range(3)]
    for i in range(3):  # Gauss elimination
        for j in range(i + 1, 3):
            f = m[j][i] / m[i][i]
            m[j] = [a - f * b for a, b in zip(m[j], m[i])]
            v[j] -= f * v[i]
    x = [0.0] * 3
    for i in (2, 1, 0):
        x[i] = (v[i] - sum(m[i][j] * x[j] for j in range(i + 1, 3))) / m[i][i]
    res = [y - sum(c * b for c, b in zip(x, r)) for r, y in zip(basis, ys)]
    return x, math.sqrt(sum(e * e for e in res) / len(res))
