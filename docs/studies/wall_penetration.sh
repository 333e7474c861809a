#!/usr/bin/env bash
# The wall-penetration study of docs/PHYSICS.md ("Walls"): dam breaks with free-slip and
# viscous walls, two to four wall layers, counting the domain guard's clamps. Run from the
# project root on a GPU machine: docs/studies/wall_penetration.sh RILLET OUTDIR
# (RILLET: the rillet binary). Prints one line per variant; OUTDIR keeps every run folder.
# ONLY=REGEX runs the variants whose name matches.
set -uo pipefail
bin=${1:?rillet binary}; out=${2:?output folder}
mkdir -p "$out"
variant() { # name scene steps every sed-expressions...
  local name=$1 scene=$2 steps=$3 every=$4; shift 4
  if [[ -n "${ONLY:-}" && ! $name =~ $ONLY ]]; then return; fi
  sed "$@" "$scene" > "$out/$name.ron"
  "$bin" run "$out/$name.ron" --steps "$steps" --every "$every" --quiet --overwrite --out "$out/$name" > "$out/$name.log" 2>&1
  local rc=$?
  # the summary line: step count, clamps, Mach
  printf '%-28s rc=%s %s\n' "$name" "$rc" "$(grep -o 'completed.*\|stopped early.*' "$out/$name.log" | sed 's/ on [^;]*;/;/' | head -c 400)"
}
study=scenes/studies/wall_penetration.ron
for layers in 2 3 4; do
  variant "2mm_free_slip_layers$layers" $study 5600 700 -e "s/layers: 2/layers: $layers/"
done
for a in 0.05 0.2; do
  variant "2mm_wall_visc${a}_layers2" $study 5600 700 -e "s/wall_viscosity: 0.0, /wall_viscosity: $a, /"
done
bench=scenes/bench_1m.ron
for layers in 2 3; do
  variant "bench1m_free_slip_layers$layers" $bench 10000 1000 -e "s/layers: 2, /layers: $layers, /"
done
variant "bench1m_wall_visc0.05" $bench 10000 1000 -e "s/wall_viscosity: 0.0, /wall_viscosity: 0.05, /"
