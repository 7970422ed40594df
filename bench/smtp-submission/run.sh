#!/usr/bin/env bash
# SMTP submission acceptance benchmark (issue 4): Postfix's smtp-source against Mailroom (api+smtp
# roles, capture mode, fresh database on the system PostgreSQL) and, in the same run, against a
# Postfix smtpd queuing to disk (bench/peers/postfix-bench.sh). Rows:
#   reused   : smtp-source -d -s 20 -m N_REUSED  -l 2000   (connections reused)
#   per-conn : smtp-source    -s 20 -m N_PERCONN -l 2000   (one message per connection)
# Mailroom's rate counts only messages answered 250 AND found committed in the emails table.
# smtp-source has no TLS or AUTH: 127.0.0.1 is a MAILROOM_SMTP_TRUSTED_NETWORKS entry here.
# CPU per message: Mailroom's process (utime+stime from /proc) and the PostgreSQL server of
# MAILROOM_BENCH_DATABASE_URL (postmaster, its children, and the children it reaped), over each row.
# Peak RSS: Mailroom's VmHWM over the whole run (start-up, warm-up and both rows).
# On the shared system PostgreSQL other work is counted too: give it a cluster of its own
# (MAILROOM_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:PORT/postgres) for a clean figure.
# Usage (root): bench/peers/install.sh && npm run build && bench/smtp-submission/run.sh
# Env (defaults): N_REUSED=15000 N_PERCONN=10000 SESSIONS=20 SIZE=2000 PORT=26587 PEER=1 (0 = skip Postfix)
#   PEER_PORT=26025 PEER_SINK_PORT=26026 PEER_DIR=/tmp/mr-postfix (the Postfix peer's listener, sink, state)
#   HTTP_PORT=0 (Mailroom's API listener, used to set up the domain; 0 = any free port)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
N_REUSED=${N_REUSED:-15000}; N_PERCONN=${N_PERCONN:-10000}; SESSIONS=${SESSIONS:-20}; SIZE=${SIZE:-2000}
PORT=${PORT:-26587}; PEER=${PEER:-1}; HTTP_PORT=${HTTP_PORT:-0}
PEER_PORT=${PEER_PORT:-26025}; PEER_SINK_PORT=${PEER_SINK_PORT:-26026}; PEER_DIR=${PEER_DIR:-/tmp/mr-postfix}
SRC_ERR=/tmp/mr-smtp-source-$PORT.err
FROM=bench@bench.example; TO=sink@sink.test
command -v smtp-source >/dev/null || { echo "smtp-source missing: run bench/peers/install.sh" >&2; exit 1; }
[[ -f "$root/dist/main.js" ]] || { echo "run npm run build first" >&2; exit 1; }

out=$(mktemp); exec 3> >(cd "$root" && exec node --import tsx bench/smtp-submission/serve.ts "$PORT" "$HTTP_PORT" > "$out" 2>&1)
stop() { exec 3>&- 2>/dev/null || true; sleep 2; rm -f "$out"; }
trap stop EXIT
# up to 120 s: on a loaded box the start (a fresh database, migrations) took over 30 s
for _ in $(seq 1 1200); do grep -q database_url "$out" && break; sleep 0.1; done
db=$(grep -o '"database_url":"[^"]*"' "$out" | cut -d'"' -f4 || true)
pid=$(grep -o '"pid":[0-9]*' "$out" | cut -d: -f2 || true)
[[ -n "$db" && -n "$pid" ]] || { echo "Mailroom did not start:" >&2; cat "$out" >&2; exit 1; }
count() { psql "$db" -Atc 'SELECT count(*) FROM emails'; }
now() { date +%s.%N; }
# CPU ticks (1/100 s) of a process: utime+stime (fields 14, 15 of /proc/PID/stat; comm may hold spaces).
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
# The postmaster of the database's port (its socket lock file), else none (then PostgreSQL CPU is not given).
pgport=$(echo "$db" | sed -E 's#.*:([0-9]+)/.*#\1#'); [[ "$pgport" =~ ^[0-9]+$ ]] || pgport=5432
postmaster=$(head -1 "/var/run/postgresql/.s.PGSQL.$pgport.lock" 2>/dev/null || true)
pg_ticks() {
  [[ -n "$postmaster" ]] || { echo 0; return; }
  # children of the postmaster are all named "postgres" (no space in comm): fields are fixed there;
  # a process that exits while being read is skipped (cat goes on, and its status is ignored)
  { sed 's/.*) //' "/proc/$postmaster/stat" | awk '{print $12 + $13 + $14 + $15}'
    { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v pm="$postmaster" '$4 == pm && $2 == "(postgres)" {print $14 + $15}'
  } | awk '{t += $1} END {print t + 0}'
}

# row LABEL N FLAGS... → prints "msgs_per_s seconds committed errors mailroom_us_per_msg postgres_us_per_msg"
row() {
  local label=$1 n=$2; shift 2
  local before t0 t1 after err c0 c1 p0 p1
  before=$(count); c0=$(ticks "$pid"); p0=$(pg_ticks); t0=$(now)
  smtp-source "$@" -s "$SESSIONS" -m "$n" -l "$SIZE" -f "$FROM" -t "$TO" "127.0.0.1:$PORT" 2> "$SRC_ERR" || true
  t1=$(now); c1=$(ticks "$pid"); p1=$(pg_ticks); after=$(count); err=$(grep -c . "$SRC_ERR" || true)
  local committed=$((after - before)); local secs; secs=$(echo "$t1 - $t0" | bc)
  local mus pus; mus=$(((c1 - c0) * 10000 / (committed > 0 ? committed : 1))); pus=$(((p1 - p0) * 10000 / (committed > 0 ? committed : 1)))
  [[ -n "$postmaster" ]] || pus=-
  echo "[$label] $committed of $n committed in ${secs}s, smtp-source errors: $err, CPU per message: Mailroom ${mus} µs, PostgreSQL ${pus} µs, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  echo "$(echo "$committed / $secs" | bc) $secs $committed $err $mus $pus"
}

row warmup 2000 -d >/dev/null
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
read -r R_RATE R_SECS R_COMM R_ERR R_MUS R_PUS < <(row reused "$N_REUSED" -d)
read -r P_RATE P_SECS P_COMM P_ERR P_MUS P_PUS < <(row per-conn "$N_PERCONN")
# Mailroom's peak RSS over the whole run (VmHWM, read before it stops)
PEAK_RSS=$(awk '/^VmHWM/{printf "%d MB", $2 / 1024}' "/proc/$pid/status" 2>/dev/null || echo "?")
exec 3>&-; sleep 2

CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "Mailroom SMTP submission, $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $CPU; load at start: $LOAD0; load before peer: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-40s %7s %9s %9s %7s %12s %12s\n' row N seconds msg/s errors "mailroom µs" "postgres µs"
printf '%-40s %7s %9s %9s %7s %12s %12s\n' "Mailroom reused connections (-d)" "$N_REUSED" "$R_SECS" "$R_RATE" "$R_ERR" "$R_MUS" "$R_PUS"
printf '%-40s %7s %9s %9s %7s %12s %12s\n' "Mailroom one message per connection" "$N_PERCONN" "$P_SECS" "$P_RATE" "$P_ERR" "$P_MUS" "$P_PUS"
echo "Mailroom peak RSS: $PEAK_RSS"

if [[ "$PEER" == 1 ]]; then
  peer=$(N_A="$N_REUSED" N_B="$N_PERCONN" N_C=1000 SESSIONS="$SESSIONS" SIZE="$SIZE" LISTEN_PORT="$PEER_PORT" \
    SINK_PORT="$PEER_SINK_PORT" DIR="$PEER_DIR" "$root/bench/peers/postfix-bench.sh" 2> >(grep -v "^\[.\] smtp-source " >&2))
  echo "$peer"
  A=$(echo "$peer" | awk '/^a\) accept/{print $(NF-3)}'); B=$(echo "$peer" | awk '/^b\) accept/{print $(NF-3)}')
  echo "load after peer: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "Ratios to Postfix in this run: reused $(echo "scale=2; $R_RATE / $A" | bc)x, one-per-connection $(echo "scale=2; $P_RATE / $B" | bc)x"
  AC=$(echo "$peer" | awk '/^a\) accept/{print $NF}'); BC=$(echo "$peer" | awk '/^b\) accept/{print $NF}')
  echo "CPU per message, Mailroom + its PostgreSQL / Postfix: reused $((R_MUS + ${R_PUS/-/0})) / $AC µs, one-per-connection $((P_MUS + ${P_PUS/-/0})) / $BC µs"
fi
