#!/bin/bash
# CPU time used so far by each running `-fork=1` fuzzing run (see
# docs/fuzzing.md): the parent's own time and its waited-for children's (finished
# workers), plus the workers still running. Read from /proc; run it before
# stopping the fuzzers (a finished run's time is gone with it).
tck=$(getconf CLK_TCK)
total=0
for t in parse_text parse_bytecode pipeline run_module read_asset weights_file; do
  parent=$(pgrep -f "release/$t .*-fork=1" | head -1)
  [ -z "$parent" ] && continue
  ticks=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$parent/stat")
  for child in $(pgrep -P "$parent"); do
    for p in "$child" $(pgrep -P "$child"); do
      ticks=$((ticks + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
  done
  echo "$t $((ticks / tck)) s"
  total=$((total + ticks / tck))
done
echo "total $total s = $(awk "BEGIN {printf \"%.2f\", $total / 3600}") CPU-hours"
