#!/bin/bash
# Kills stuck fuzz workers: with -fork=1 a heap corruption inside MLIR's
# bytecode reader can deadlock libFuzzer's own crash handler (the worker
# sleeps on a futex, using no CPU) and its parent waits for ever. Every 20 s,
# a worker (a target binary run with -ignore_crashes but without -fork) older
# than 40 s, asleep on a futex, whose CPU time has not moved since the last
# look is killed; the parent counts it as a crash and goes on. Each kill is
# logged to stderr. Run it beside the fuzzers: fuzz/watchdog.sh &
targets="parse_text|parse_bytecode|pipeline|run_module|read_asset|weights_file"
declare -A seen
while true; do
  for pid in $(pgrep -f "release/($targets) .*-ignore_crashes"); do
    args=$(ps -o args= -p "$pid" 2>/dev/null) || continue
    [[ $args == *-fork=* ]] && continue
    age=$(ps -o etimes= -p "$pid" | tr -d ' ')
    cpu=$(ps -o times= -p "$pid" | tr -d ' ')
    wchan=$(ps -o wchan:30= -p "$pid" | tr -d ' ')
    if [ "${age:-0}" -gt 40 ] && [ "$wchan" = futex_do_wait ] && [ "${seen[$pid]}" = "$cpu" ]; then
      echo "$(date +%T) watchdog: killing stuck worker $pid (${args%% *})" >&2
      kill -9 "$pid"
    fi
    seen[$pid]=$cpu
  done
  sleep 20
done
