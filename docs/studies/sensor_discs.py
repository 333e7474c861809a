# The hydrostatic sensor study (docs/VALIDATION.md, "Pressure sensors"): each sensor's mean over
# the second half of a run of scenes/studies/hydrostatic*_sensors.ron against ρ0·g·(H − y),
# H = 1 m, in percent of the local value.   python3 sensor_discs.py RUN_DIR [RUN_DIR ...]
import csv
import sys

RHO_G = 1000.0 * 9.81
for run in sys.argv[1:]:
    rows = list(csv.DictReader(open(f"{run}/sensors.csv")))
    t_end = float(rows[-1]["time_s"])
    late = [r for r in rows if float(r["time_s"]) >= 0.5 * t_end]
    names = [k[:-3] for k in rows[0] if k.endswith("_pa")]
    out = []
    for n in names:
        y = float(n.split("_")[0][1:])
        p = sum(float(r[f"{n}_pa"]) for r in late) / len(late)
        out.append(f"{n} {100 * (p / (RHO_G * (1.0 - y)) - 1):+.2f}%")
    print(run, ":", ", ".join(out))
