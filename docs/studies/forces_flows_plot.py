#!/usr/bin/env python3
"""The figure of docs/VALIDATION.md, "Forces on solids and flow rates".

    python3 docs/studies/forces_flows_plot.py BOX_RUN CHANNEL_RUN OUT.png

BOX_RUN: a `rillet run` folder of scenes/studies/hydrostatic_force.ron; CHANNEL_RUN: one of
scenes/channel.ron. Left: the fluid's vertical force on the submerged box against Archimedes'
78.48 N (each row, and its running mean over 0.5 s). Right: the mass rate through the
channel's two sections against the emitter's 60.00 kg/s (running means over 0.5 s).
Needs matplotlib.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read(folder):
    with open(f"{folder}/sensors.csv", newline="") as f:
        return list(csv.DictReader(f))


def running_mean(t, v, window):
    out = []
    for i, ti in enumerate(t):
        sel = [v[j] for j in range(len(t)) if ti - window < t[j] <= ti]
        out.append(sum(sel) / len(sel))
    return out


def main():
    box, channel, png = sys.argv[1], sys.argv[2], sys.argv[3]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    rows = read(box)
    t = [float(r["time_s"]) for r in rows]
    fy = [float(r["box_fy_n"]) for r in rows]
    a.plot(t, fy, ".", ms=2, color="0.6", label="F_y, each row")
    a.plot(t, running_mean(t, fy, 0.5), color="C0", label="running mean, 0.5 s")
    a.axhline(78.48, color="k", ls="--", label="ρ0 g V = 78.48 N")
    a.set(xlabel="t (s)", ylabel="vertical force on the box (N)", title="a 0.2 m cube held in the column at rest (WCSPH)", ylim=(40, 120))
    a.legend(fontsize=8)
    rows = [r for r in read(channel) if float(r["time_s"]) > 0.5]
    t = [float(r["time_s"]) for r in rows]
    for name, colour in (("x0.3", "C1"), ("x1.2", "C2")):
        m = [float(r[f"{name}_kg_s"]) for r in rows]
        b.plot(t, running_mean(t, m, 0.5), color=colour, label=f"section x = {name[1:]} m (running mean, 0.5 s)")
    b.axhline(60.0, color="k", ls="--", label="the emitter: 60.00 kg/s")
    b.set(xlabel="t (s)", ylabel="mass rate (kg/s)", title="channel with a cylinder", ylim=(40, 70))
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
