#!/usr/bin/env bash
# SMTP submission acceptance benchmark (issue 4): Postfix's smtp-source against Mailroom (api+smtp
# roles, capture mode, fresh database on the system PostgreSQL) and, in the same run, against a
# Postfix smtpd queuing to disk (bench/peers/postfix-bench.sh). Rows:
#   reused   : smtp-source -d -s 20 -m N_REUSED  -l 2000   (connections reused)
#   per-conn : smtp-source    -s 20 -m N_PERCONN -l 2000   (one message per connection)
# Mailroom's rate counts only messages answered 250 AND found committed in the emails table.
# smtp-source has no TLS or AUTH: 127.0.0.1 is a MAILROOM_SMTP_TRUSTED_NETWORKS entry here.
# Usage (root): bench/peers/install.sh && npm run build && bench/smtp-submission/run.sh
# Env (defaults): N_REUSED=15000 N_PERCONN=10000 SESSIONS=20 SIZE=2000 PORT=26587 PEER=1 (0 = skip Postfix)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
N_REUSED=${N_REUSED:-15000}; N_PERCONN=${N_PERCONN:-10000}; SESSIONS=${SESSIONS:-20}; SIZE=${SIZE:-2000}
PORT=${PORT:-26587}; PEER=${PEER:-1}
FROM=bench@bench.example; TO=sink@sink.test
command -v smtp-source >/dev/null || { echo "smtp-source missing: run bench/peers/install.sh" >&2; exit 1; }
[[ -f "$root/dist/main.js" ]] || { echo "run npm run build first" >&2; exit 1; }

out=$(mktemp); exec 3> >(cd "$root" && exec node --import tsx bench/smtp-submission/serve.ts "$PORT" > "$out" 2>&1)
stop() { exec 3>&- 2>/dev/null || true; sleep 2; rm -f "$out"; }
trap stop EXIT
for _ in $(seq 1 300); do grep -q database_url "$out" && break; sleep 0.1; done
db=$(grep -o '"database_url":"[^"]*"' "$out" | cut -d'"' -f4)
[[ -n "$db" ]] || { cat "$out" >&2; exit 1; }
count() { psql "$db" -Atc 'SELECT count(*) FROM emails'; }
now() { date +%s.%N; }

# row LABEL N FLAGS... → prints "msgs_per_s seconds committed errors"
row() {
  local label=$1 n=$2; shift 2
  local before t0 t1 after err
  before=$(count); t0=$(now)
  smtp-source "$@" -s "$SESSIONS" -m "$n" -l "$SIZE" -f "$FROM" -t "$TO" "127.0.0.1:$PORT" 2> /tmp/mr-smtp-source.err || true
  t1=$(now); after=$(count); err=$(grep -c . /tmp/mr-smtp-source.err || true)
  local committed=$((after - before)); local secs; secs=$(echo "$t1 - $t0" | bc)
  echo "[$label] $committed of $n committed in ${secs}s, smtp-source errors: $err" >&2
  echo "$(echo "$committed / $secs" | bc) $secs $committed $err"
}

row warmup 2000 -d >/dev/null
read -r R_RATE R_SECS R_COMM R_ERR < <(row reused "$N_REUSED" -d)
read -r P_RATE P_SECS P_COMM P_ERR < <(row per-conn "$N_PERCONN")
exec 3>&-; sleep 2

CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "Mailroom SMTP submission, $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $CPU; load before peer: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-40s %7s %9s %9s %7s\n' row N seconds msg/s errors
printf '%-40s %7s %9s %9s %7s\n' "Mailroom reused connections (-d)" "$N_REUSED" "$R_SECS" "$R_RATE" "$R_ERR"
printf '%-40s %7s %9s %9s %7s\n' "Mailroom one message per connection" "$N_PERCONN" "$P_SECS" "$P_RATE" "$P_ERR"

if [[ "$PEER" == 1 ]]; then
  peer=$(N_A="$N_REUSED" N_B="$N_PERCONN" N_C=1000 SESSIONS="$SESSIONS" SIZE="$SIZE" "$root/bench/peers/postfix-bench.sh" 2>/dev/null)
  echo "$peer"
  A=$(echo "$peer" | awk '/^a\) accept/{print $(NF-2)}'); B=$(echo "$peer" | awk '/^b\) accept/{print $(NF-2)}')
  echo "Ratios to Postfix in this run: reused $(echo "scale=2; $R_RATE / $A" | bc)x, one-per-connection $(echo "scale=2; $P_RATE / $B" | bc)x"
fi
