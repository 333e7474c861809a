#!/usr/bin/env python3
"""Means of force sensors and flow sections over a time window of a `rillet run` folder.

    python3 docs/studies/forces_flows.py RUN_DIR T_FROM T_TO

prints, for each force sensor and flow section in RUN_DIR/sensors.csv, the mean, the standard
deviation, the least and the largest value of every column over T_FROM <= time_s < T_TO
(docs/VALIDATION.md, "Forces on solids and flow rates"). Standard library only.
"""
import csv
import statistics
import sys


def main():
    folder, lo, hi = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    with open(f"{folder}/sensors.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if lo <= float(r["time_s"]) < hi]
    if not rows:
        sys.exit(f"{folder}/sensors.csv: no row with {lo} <= time_s < {hi}")
    units = ("_fx_n", "_fy_n", "_fz_n", "_mx_nm", "_my_nm", "_mz_nm", "_m3_s", "_kg_s")
    print(f"{len(rows)} rows, t in [{lo}, {hi}) s")
    for column in rows[0]:
        if column.endswith(units):
            v = [float(r[column]) for r in rows]
            print(f"{column:>24}: mean {statistics.mean(v):12.5g}  sd {statistics.pstdev(v):10.4g}  min {min(v):12.5g}  max {max(v):12.5g}")


if __name__ == "__main__":
    main()
