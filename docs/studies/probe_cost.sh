#!/usr/bin/env bash
# What a probe row costs on the 1M benchmark (docs/PERFORMANCE.md, "A probe row's cost"): runs of
# scenes/bench_1m.ron, 400 steps each, probing every 400 steps (2 rows) or every 10 (41 rows),
# with the rows measured on the GPU (the default) and by the CPU twin (--probes cpu); the time
# outside stepping is run.json's wall_seconds − stepping_seconds. --profile-fraction 0 keeps
# profile.csv (which reads the particles) to the last row, so the rows between are probe rows
# alone; the default fraction (0.1) is run too. Then the GPU's rows against the CPU twin's on the
# same states: the benchmark in deterministic mode (grid.deterministic), 200 steps, a row every 20,
# once with each (a probe row changes nothing of the run, so both runs pass the same states).
# Run from the project root on a GPU machine:  docs/studies/probe_cost.sh RILLET OUTDIR
set -uo pipefail
bin=${1:?rillet binary}; out=${2:?output folder}
mkdir -p "$out"
run() { # name every probes profile-fraction [scene]
  "$bin" run "${5:-scenes/bench_1m.ron}" --steps 400 --every "$2" --probes "$3" --profile-fraction "$4" --quiet --overwrite --out "$out/$1" > "$out/$1.log" 2>&1
  echo "$1: exit $?"
}
run gpu_400 400 gpu 0
run gpu_10 10 gpu 0
run cpu_400 400 cpu 0
run cpu_10 10 cpu 0
run gpu_10_profile 10 gpu 0.1
run gpu_10_4m 10 gpu 0 scenes/studies/bench_4m.ron
run cpu_10_4m 10 cpu 0 scenes/studies/bench_4m.ron
sed 's/diagnostics: true,/diagnostics: true, deterministic: true,/' scenes/bench_1m.ron > scenes/.probe_cost_det.ron
for p in gpu cpu; do
  "$bin" run scenes/.probe_cost_det.ron --steps 200 --every 20 --probes $p --quiet --overwrite --out "$out/det_$p" > "$out/det_$p.log" 2>&1
  echo "det_$p: exit $?"
done
rm -f scenes/.probe_cost_det.ron
python3 - "$out" <<'EOF'
import csv, json, sys
out = sys.argv[1]
def outside(name):
    r = json.load(open(f"{out}/{name}/run.json"))
    return r["wall_seconds"] - r["stepping_seconds"], r["wall_seconds"], r["stepping_seconds"]
for probes in ("gpu", "cpu"):
    a, b = outside(f"{probes}_400"), outside(f"{probes}_10")
    print(f"{probes}: outside stepping {a[0]:.3f} s (2 rows) and {b[0]:.3f} s (41 rows): {(b[0] - a[0]) / 39 * 1000:.1f} ms a row "
          f"(wall {a[1]:.2f} / {b[1]:.2f} s, stepping {a[2]:.2f} / {b[2]:.2f} s)")
for name in ("gpu_400", "gpu_10", "cpu_400", "cpu_10", "gpu_10_profile", "gpu_10_4m", "cpu_10_4m"):
    r = json.load(open(f"{out}/{name}/run.json"))
    print(f"{name}: run.json probe_seconds {r['probe_seconds']:.4f} s, {r['probe_ms_per_row']:.2f} ms a row")
p = outside("gpu_10_profile")
print(f"gpu, default profile fraction: outside stepping {p[0]:.3f} s for 41 rows, 5 of them with a copy of the particles")
rows = lambda name: list(csv.DictReader(open(f"{out}/{name}/probes.csv")))
g, c = rows("det_gpu"), rows("det_cpu")
worst = {}
for rg, rc in zip(g, c):
    for k in rg:
        if k in ("step", "time_s"):
            continue
        a, b = float(rg[k]), float(rc[k])
        d = abs(a - b) / max(abs(b), 1e-12)
        if d > worst.get(k, (0,))[0]:
            worst[k] = (d, rg["step"], a, b)
print("deterministic runs: the GPU's rows against the CPU twin's, largest relative difference per column:")
for k, (d, s, a, b) in sorted(worst.items(), key=lambda kv: -kv[1][0]):
    print(f"  {k}: {d:.2e} at step {s} ({a} vs {b})")
EOF
