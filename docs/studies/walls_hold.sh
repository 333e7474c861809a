#!/usr/bin/env bash
# Whether the default walls hold (docs/PHYSICS.md, "Walls"): the shipped scenes with free-slip
# walls and no wall viscosity, counting the domain guard's clamps, the particles inside solids
# and the fastest particle. Run from the project root on a GPU machine:
#   docs/studies/walls_hold.sh RILLET OUTDIR
set -uo pipefail
bin=${1:?rillet binary}; out=${2:?output folder}
mkdir -p "$out"
summary() { # DIR C: fastest particle (and when), when it first passed 0.1 c, clamps, inside solids
  awk -F, -v c="$2" -v name="$(basename "$1")" 'NR==1{for(i=1;i<=NF;i++){if($i=="time_s")t=i;if($i=="max_speed_m_s")v=i;if($i=="wall_clamps")w=i;if($i=="inside_solids")s=i}next}
  {if($v>m){m=$v;tm=$t} if(first==""&&$v>0.1*c)first=$t; last=$w; ins=$s}
  END{printf "%-20s fastest %.3f m/s (Mach %.3f) at t=%.3f s; first above 0.1 c: %s; wall clamps %s; inside solids at the last probe %s\n",name,m,m/c,tm,(first==""?"never":first),last,ins}' "$1/probes.csv"
}
variant() { # name scene steps every c sed-expressions...
  local name=$1 scene=$2 steps=$3 every=$4 c=$5; shift 5
  sed "$@" "$scene" > "scenes/.walls_hold_$name.ron"
  "$bin" run "scenes/.walls_hold_$name.ron" --steps "$steps" --every "$every" --quiet --overwrite --out "$out/$name" > "$out/$name.log" 2>&1
  echo "$name: exit $?"; summary "$out/$name" "$c"
  rm -f "scenes/.walls_hold_$name.ron"
}
free='s/wall_viscosity: [0-9.]*,/wall_viscosity: 0.0,/'
variant dam_break scenes/dam_break.ron 10000 50 50 -e "$free"
variant wall_penetration scenes/studies/wall_penetration.ron 5600 700 34.31 -e "$free"
variant spheric_free scenes/studies/spheric_test2_1m.ron 13637 91 60 -e "$free"
variant spheric_a2 scenes/studies/spheric_test2_1m.ron 13637 91 60 -e "$free" -e 's/wall_viscosity: 0.0,/wall_viscosity: 0.0, wall_approach_viscosity: 2.0,/'
variant bowl_free scenes/bowl.ron 6000 100 40 -e "$free"
variant jet_free scenes/jet.ron 8000 100 40 -e "$free"
variant channel_free scenes/channel.ron 10000 100 40 -e "$free"
