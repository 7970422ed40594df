#!/usr/bin/env bash
# Inbound MX benchmark (issue 6): Postfix's smtp-source sends DKIM-signed messages (-F) to
# Mailroom's MX listener (roles api,mx, fresh database on the system PostgreSQL, fake DNS on
# loopback answering the SPF/DKIM/DMARC lookups), and in the same run to a Postfix smtpd queuing
# the same file to disk (bench/peers/postfix-bench.sh row a). Mailroom's rate counts only
# messages answered 250 AND found committed in received_emails (each parsed, authenticated,
# stored raw and per attachment, with its email.received event).
# Rows: small = 10 KB multipart text+HTML, connections reused; large = the same with a 1 MB attachment.
# Usage (root): bench/peers/install.sh && npm run build && bench/inbound/run.sh
# Env (defaults): N_SMALL=20000 N_LARGE=400 SESSIONS=20 PORT=26525 PEER=1 (0 = skip Postfix)
#   PF_PORT=26125 (Postfix listens there, its sink one above) PF_DIR=/tmp/mr-postfix-inbound: for runs beside other work
#   MAILROOM_BENCH_DATABASE_URL (a PostgreSQL of your own, default the system one on 5432)
#   HTTP_PORT=0 (the service's API listener; 0 = any free port)
# Every other listener (fake DNS, the service's API by default) takes a free port of the kernel's, and
# every file this script and serve.ts write is under one mktemp directory: runs side by side do not clash.
# PostgreSQL's CPU per message is that of the server of MAILROOM_BENCH_DATABASE_URL when it is local
# (its postmaster from the socket lock file, with every child): use a cluster of your own for it.
# With PGSS=1 (and pg_stat_statements loaded in that cluster), each row's top statements are printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
N_SMALL=${N_SMALL:-20000}; N_LARGE=${N_LARGE:-400}; SESSIONS=${SESSIONS:-20}; PORT=${PORT:-26525}; PEER=${PEER:-1}
FROM=bench@sender.bench; TO=inbox@inbound.bench
command -v smtp-source >/dev/null || { echo "smtp-source missing: run bench/peers/install.sh" >&2; exit 1; }
[[ -f "$root/dist/main.js" ]] || { echo "run npm run build first" >&2; exit 1; }

tmp=$(mktemp -d /tmp/mr-inbound.XXXXXX); out=$tmp/serve.out
exec 3> >(cd "$root" && BENCH_TMP=$tmp exec node --import tsx bench/inbound/serve.ts "$PORT" "${HTTP_PORT:-0}" > "$out" 2>&1)
stop() { exec 3>&- 2>/dev/null || true; sleep 2; rm -rf "$tmp"; }
trap stop EXIT
for _ in $(seq 1 1800); do grep -q database_url "$out" && break; sleep 0.1; done  # up to 3 min: a loaded box starts slowly
field() { grep -m1 '^{' "$out" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);const k=process.argv[1];console.log(j[k]??j.files[k]??"")})' "$1"; }
db=$(field database_url); pid=$(field pid); small=$(field small); large=$(field large)
[[ -n "$db" && -n "$small" ]] || { cat "$out" >&2; exit 1; }
count() { psql "$db" -Atc 'SELECT count(*) FROM received_emails'; }
now() { date +%s.%N; }
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }   # Mailroom's CPU time, clock ticks
TICK=$(getconf CLK_TCK)
SERVER=${MAILROOM_BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
pgport=$(echo "$SERVER" | sed -E 's#.*:([0-9]+)/.*#\1#'); [[ "$pgport" =~ ^[0-9]+$ ]] || pgport=5432
postmaster=$(head -1 "/var/run/postgresql/.s.PGSQL.$pgport.lock" 2>/dev/null || echo 0)
# PostgreSQL's CPU time in clock ticks: the postmaster (with its reaped children) and its live children.
pgcpu() {
  [[ -d /proc/$postmaster ]] || { echo 0; return; }
  { awk '{print $14 + $15 + $16 + $17}' "/proc/$postmaster/stat"
    for c in $(pgrep -P "$postmaster"); do awk '{print $14 + $15}' "/proc/$c/stat" 2>/dev/null; done; } | awk '{s += $1} END {print s}'
}
pgss() {  # the statements of this run's database, by total time (PGSS=1)
  [[ "${PGSS:-0}" == 1 ]] || return 0
  psql "$SERVER" -Atc "SELECT calls, round(total_exec_time::numeric, 1) AS exec_ms, round(total_plan_time::numeric, 1) AS plan_ms, rows, left(regexp_replace(query, '\s+', ' ', 'g'), 110)
    FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = '$(basename "${db%%\?*}")' ORDER BY total_exec_time + total_plan_time DESC LIMIT 14" >&2
}
pgss_reset() { [[ "${PGSS:-0}" == 1 ]] && psql "$SERVER" -Atc 'SELECT pg_stat_statements_reset()' >/dev/null; return 0; }

# row LABEL N FILE SESSIONS → prints "msgs_per_s seconds committed errors mailroom_cpu_ms pg_cpu_ms"
row() {
  local label=$1 n=$2 file=$3 sessions=$4
  local before t0 t1 after err
  pgss_reset
  before=$(count); t0=$(now); local c0 p0; c0=$(cpu); p0=$(pgcpu)
  timeout 300 smtp-source -d -s "$sessions" -m "$n" -F "$file" -f "$FROM" -t "$TO" "127.0.0.1:$PORT" 2> "$tmp/source.err" || true
  t1=$(now); after=$(count); err=$(grep -c . "$tmp/source.err" || true)
  local committed=$((after - before)); local secs; secs=$(echo "$t1 - $t0" | bc)
  local cpums; cpums=$(echo "scale=3; ($(cpu) - $c0) * 1000 / $TICK / $committed" | bc)
  local pgms; pgms=$(echo "scale=3; ($(pgcpu) - $p0) * 1000 / $TICK / $committed" | bc)
  echo "[$label] $committed of $n committed in ${secs}s, smtp-source errors: $err, Mailroom CPU ${cpums} ms/msg, PostgreSQL CPU ${pgms} ms/msg, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  [[ $label == warmup ]] || pgss
  echo "$(echo "$committed / $secs" | bc) $secs $committed $err $cpums $pgms"
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
row warmup 1000 "$small" "$SESSIONS" >/dev/null
read -r S_RATE S_SECS S_COMM S_ERR S_CPU S_PG < <(row small "$N_SMALL" "$small" "$SESSIONS")
RSS_SMALL=$(awk '/VmHWM/{print int($2/1024)}' "/proc/$pid/status")
read -r L_RATE L_SECS L_COMM L_ERR L_CPU L_PG < <(row large "$N_LARGE" "$large" "$SESSIONS")
RSS=$(awk '/VmHWM/{print int($2/1024)}' "/proc/$pid/status")
AUTH=$(psql "$db" -Atc "SELECT string_agg(v || '=' || n, ', ') FROM (SELECT authentication->>'spf' || '/' || (authentication->>'dkim') || '/' || (authentication->>'dmarc') AS v, count(*) AS n FROM received_emails GROUP BY 1) x")
ATT=$(psql "$db" -Atc "SELECT count(*) FROM received_attachments WHERE size = 1048576")
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
cp "$small" "$tmp/small-copy.eml"; cp "$large" "$tmp/large-copy.eml"
exec 3>&-; sleep 3

CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "Mailroom inbound MX, $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $CPU; load before/after: $LOAD0 / $LOAD1"
echo "message files: small $(stat -c %s "$tmp/small-copy.eml") bytes, large $(stat -c %s "$tmp/large-copy.eml") bytes; spf/dkim/dmarc verdicts: $AUTH; 1 MB attachments stored: $ATT"
printf '%-44s %7s %9s %9s %7s %12s %12s\n' row N seconds msg/s errors 'CPU ms/msg' 'PG ms/msg'
printf '%-44s %7s %9s %9s %7s %12s %12s\n' "Mailroom 10 KB, reused connections" "$N_SMALL" "$S_SECS" "$S_RATE" "$S_ERR" "$S_CPU" "$S_PG"
printf '%-44s %7s %9s %9s %7s %12s %12s\n' "Mailroom 1 MB attachment, reused connections" "$N_LARGE" "$L_SECS" "$L_RATE" "$L_ERR" "$L_CPU" "$L_PG"
echo "Mailroom peak RSS (VmHWM): ${RSS_SMALL} MB after the 10 KB row, ${RSS} MB after the 1 MB row"

if [[ "$PEER" == 1 ]]; then
  pf() { MSG_FILE=$1 ROWS=a N_A=$2 SESSIONS="$SESSIONS" DIR=${PF_DIR:-/tmp/mr-postfix-inbound} LISTEN_PORT=${PF_PORT:-26125} SINK_PORT=$((${PF_PORT:-26125} + 1)) "$root/bench/peers/postfix-bench.sh" 2>/dev/null | awk '/^a\) accept/{print $(NF-3)}'; }
  PA=$(pf "$tmp/small-copy.eml" "$N_SMALL"); PB=$(pf "$tmp/large-copy.eml" "$N_LARGE")
  echo "Postfix $(postconf -d -h mail_version) smtpd queuing the same files to disk (row a of bench/peers/postfix-bench.sh): 10 KB ${PA} msg/s, 1 MB ${PB} msg/s"
  echo "Ratios to Postfix in this run: 10 KB $(echo "scale=2; $S_RATE / $PA" | bc)x, 1 MB $(echo "scale=2; $L_RATE / $PB" | bc)x"
fi
