#!/usr/bin/env bash
# Two builds of Mailroom side by side (e.g. a branch point and a branch), each started by its own
# bench/smtp-submission/serve.ts on its own port and database, driven by smtp-source AT THE SAME
# TIME with the same load, so both see the same machine load: Mailroom CPU per message (utime +
# stime of each service process) and rate, for connections reused (-d) and one message per
# connection. On a box shared with other work, run.sh's sequential rows see different loads;
# this compares two builds' CPU under one. No Postfix peer here (run.sh has it).
# Usage (root): bench/smtp-submission/ab.sh TREE_A TREE_B   (each tree built: npm run build)
# Env (defaults): N_REUSED=6000 N_PERCONN=3000 SESSIONS=20 SIZE=2000 PORT_A=26591 PORT_B=26592
set -euo pipefail
A=$1; B=$2
N_REUSED=${N_REUSED:-6000}; N_PERCONN=${N_PERCONN:-3000}; SESSIONS=${SESSIONS:-20}; SIZE=${SIZE:-2000}
PORT_A=${PORT_A:-26591}; PORT_B=${PORT_B:-26592}
FROM=bench@bench.example; TO=sink@sink.test
outA=$(mktemp); outB=$(mktemp)
exec 3> >(cd "$A" && exec node --import tsx bench/smtp-submission/serve.ts "$PORT_A" > "$outA" 2>&1)
stop() { exec 3>&- 4>&- 2>/dev/null || true; sleep 3; rm -f "$outA" "$outB"; }
trap stop EXIT
# one start at a time (two at once on a loaded box overran startService's 30 s)
for _ in $(seq 1 1200); do grep -q database_url "$outA" && break; sleep 0.1; done
exec 4> >(cd "$B" && exec node --import tsx bench/smtp-submission/serve.ts "$PORT_B" > "$outB" 2>&1)
for _ in $(seq 1 1200); do grep -q database_url "$outA" && grep -q database_url "$outB" && break; sleep 0.1; done
field() { grep -o "\"$2\":[^,}]*" "$1" | cut -d: -f2- | tr -d '"' || true; }
dbA=$(field "$outA" database_url); dbB=$(field "$outB" database_url); pidA=$(field "$outA" pid); pidB=$(field "$outB" pid)
[[ -n "$pidA" && -n "$pidB" ]] || { echo "a service did not start" >&2; cat "$outA" "$outB" >&2; exit 1; }
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
count() { psql "$1" -Atc 'SELECT count(*) FROM emails'; }
now() { date +%s.%N; }
row() {
  local label=$1 n=$2; shift 2
  local a0 b0 ca0 cb0 t0 ta tb
  a0=$(count "$dbA"); b0=$(count "$dbB"); ca0=$(ticks "$pidA"); cb0=$(ticks "$pidB"); t0=$(now)
  ( smtp-source "$@" -s "$SESSIONS" -m "$n" -l "$SIZE" -f "$FROM" -t "$TO" "127.0.0.1:$PORT_A" 2> "/tmp/mr-ab-$PORT_A.err"; echo "$(now)" > "/tmp/mr-ab-$PORT_A.t" ) &
  ( smtp-source "$@" -s "$SESSIONS" -m "$n" -l "$SIZE" -f "$FROM" -t "$TO" "127.0.0.1:$PORT_B" 2> "/tmp/mr-ab-$PORT_B.err"; echo "$(now)" > "/tmp/mr-ab-$PORT_B.t" ) &
  wait
  local ca1 cb1 a1 b1; ca1=$(ticks "$pidA"); cb1=$(ticks "$pidB"); a1=$(count "$dbA"); b1=$(count "$dbB")
  ta=$(echo "$(cat "/tmp/mr-ab-$PORT_A.t") - $t0" | bc); tb=$(echo "$(cat "/tmp/mr-ab-$PORT_B.t") - $t0" | bc)
  local ea eb; ea=$(grep -c . "/tmp/mr-ab-$PORT_A.err" || true); eb=$(grep -c . "/tmp/mr-ab-$PORT_B.err" || true)
  printf '%-10s A: %5d of %d committed, %6.1f s, %5d msg/s, %5d µs CPU/msg, errors %s | B: %5d committed, %6.1f s, %5d msg/s, %5d µs CPU/msg, errors %s | load %s\n' \
    "$label" $((a1 - a0)) "$n" "$ta" "$(echo "($a1 - $a0) / $ta" | bc)" $(((ca1 - ca0) * 10000 / (a1 - a0 > 0 ? a1 - a0 : 1))) "$ea" \
    $((b1 - b0)) "$tb" "$(echo "($b1 - $b0) / $tb" | bc)" $(((cb1 - cb0) * 10000 / (b1 - b0 > 0 ? b1 - b0 : 1))) "$eb" "$(cut -d' ' -f1-3 /proc/loadavg)"
}
echo "A = $A, B = $B; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
row warmup 1000 -d
row reused "$N_REUSED" -d
row per-conn "$N_PERCONN"
