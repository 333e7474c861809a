#!/usr/bin/env bash
# The built-in dam break's impact jet against resolution (docs/PHYSICS.md, "Walls"): the scene
# at 20, 10 and 5 mm (dt scaled with the spacing, the CFL number kept), and at 10 mm with the
# walls' approach viscosity 0 and 2; frames every 0.03 s read back for the particles faster than
# free fall from the domain's top, sqrt(2 g 0.8) = 3.96 m/s. Run from the project root on a GPU
# machine (the 5 mm run has 1.44M fluid particles):
#   docs/studies/impact_jet.sh RILLET OUTDIR
set -uo pipefail
bin=${1:?rillet binary}; out=${2:?output folder}
mkdir -p "$out"
variant() { # name spacing dt alpha_n steps every export_every
  sed -e "s/^        spacing: 0.02,/        spacing: $2,/" -e "s/^        dt: 0.0003,/        dt: $3,/" \
      -e "s/^        wall_approach_viscosity: 1.0,/        wall_approach_viscosity: $4,/" scenes/dam_break.ron > "$out/$1.ron"
  "$bin" run "$out/$1.ron" --steps "$5" --every "$6" --quiet --overwrite --export ply --export-every "$7" --out "$out/$1" > "$out/$1.log" 2>&1
  echo "$1: exit $?"
  python3 docs/studies/speed_tail.py 3.96 $(ls "$out/$1/particles/"*.ply | sed -n '12,21p')
}
variant db_20 0.02 0.0003 1.0 2000 20 100
variant db_10 0.01 0.00015 1.0 4000 40 200
variant db_05 0.005 0.000075 1.0 8000 80 400
variant db_10a0 0.01 0.00015 0.0 4000 40 200
variant db_10a2 0.01 0.00015 2.0 4000 40 200
