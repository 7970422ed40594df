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
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
N_SMALL=${N_SMALL:-20000}; N_LARGE=${N_LARGE:-400}; SESSIONS=${SESSIONS:-20}; PORT=${PORT:-26525}; PEER=${PEER:-1}
FROM=bench@sender.bench; TO=inbox@inbound.bench
command -v smtp-source >/dev/null || { echo "smtp-source missing: run bench/peers/install.sh" >&2; exit 1; }
[[ -f "$root/dist/main.js" ]] || { echo "run npm run build first" >&2; exit 1; }

out=$(mktemp); exec 3> >(cd "$root" && exec node --import tsx bench/inbound/serve.ts "$PORT" > "$out" 2>&1)
stop() { exec 3>&- 2>/dev/null || true; sleep 2; rm -f "$out"; }
trap stop EXIT
for _ in $(seq 1 1800); do grep -q database_url "$out" && break; sleep 0.1; done  # up to 3 min: a loaded box starts slowly
field() { grep -m1 '^{' "$out" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);const k=process.argv[1];console.log(j[k]??j.files[k]??"")})' "$1"; }
db=$(field database_url); pid=$(field pid); small=$(field small); large=$(field large)
[[ -n "$db" && -n "$small" ]] || { cat "$out" >&2; exit 1; }
count() { psql "$db" -Atc 'SELECT count(*) FROM received_emails'; }
now() { date +%s.%N; }
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }   # Mailroom's CPU time, clock ticks
TICK=$(getconf CLK_TCK)

# row LABEL N FILE SESSIONS → prints "msgs_per_s seconds committed errors"
row() {
  local label=$1 n=$2 file=$3 sessions=$4
  local before t0 t1 after err
  before=$(count); t0=$(now); local c0; c0=$(cpu)
  timeout 300 smtp-source -d -s "$sessions" -m "$n" -F "$file" -f "$FROM" -t "$TO" "127.0.0.1:$PORT" 2> /tmp/mr-inbound-source.err || true
  t1=$(now); after=$(count); err=$(grep -c . /tmp/mr-inbound-source.err || true)
  local committed=$((after - before)); local secs; secs=$(echo "$t1 - $t0" | bc)
  local cpums; cpums=$(echo "scale=2; ($(cpu) - $c0) * 1000 / $TICK / $committed" | bc)
  echo "[$label] $committed of $n committed in ${secs}s, smtp-source errors: $err, Mailroom CPU ${cpums} ms/msg" >&2
  echo "$(echo "$committed / $secs" | bc) $secs $committed $err $cpums"
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
row warmup 1000 "$small" "$SESSIONS" >/dev/null
read -r S_RATE S_SECS S_COMM S_ERR S_CPU < <(row small "$N_SMALL" "$small" "$SESSIONS")
RSS_SMALL=$(awk '/VmHWM/{print int($2/1024)}' "/proc/$pid/status")
read -r L_RATE L_SECS L_COMM L_ERR L_CPU < <(row large "$N_LARGE" "$large" "$SESSIONS")
RSS=$(awk '/VmHWM/{print int($2/1024)}' "/proc/$pid/status")
AUTH=$(psql "$db" -Atc "SELECT string_agg(v || '=' || n, ', ') FROM (SELECT authentication->>'spf' || '/' || (authentication->>'dkim') || '/' || (authentication->>'dmarc') AS v, count(*) AS n FROM received_emails GROUP BY 1) x")
ATT=$(psql "$db" -Atc "SELECT count(*) FROM received_attachments WHERE size = 1048576")
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
cp "$small" /tmp/mr-inbound-small.eml; cp "$large" /tmp/mr-inbound-large.eml
exec 3>&-; sleep 3

CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "Mailroom inbound MX, $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $CPU; load before/after: $LOAD0 / $LOAD1"
echo "message files: small $(stat -c %s /tmp/mr-inbound-small.eml) bytes, large $(stat -c %s /tmp/mr-inbound-large.eml) bytes; spf/dkim/dmarc verdicts: $AUTH; 1 MB attachments stored: $ATT"
printf '%-44s %7s %9s %9s %7s %12s\n' row N seconds msg/s errors 'CPU ms/msg'
printf '%-44s %7s %9s %9s %7s %12s\n' "Mailroom 10 KB, reused connections" "$N_SMALL" "$S_SECS" "$S_RATE" "$S_ERR" "$S_CPU"
printf '%-44s %7s %9s %9s %7s %12s\n' "Mailroom 1 MB attachment, reused connections" "$N_LARGE" "$L_SECS" "$L_RATE" "$L_ERR" "$L_CPU"
echo "Mailroom peak RSS (VmHWM): ${RSS_SMALL} MB after the 10 KB row, ${RSS} MB after the 1 MB row"

if [[ "$PEER" == 1 ]]; then
  pf() { MSG_FILE=$1 ROWS=a N_A=$2 SESSIONS="$SESSIONS" DIR=${PF_DIR:-/tmp/mr-postfix-inbound} LISTEN_PORT=${PF_PORT:-26125} SINK_PORT=$((${PF_PORT:-26125} + 1)) "$root/bench/peers/postfix-bench.sh" 2>/dev/null | awk '/^a\) accept/{print $(NF-2)}'; }
  PA=$(pf /tmp/mr-inbound-small.eml "$N_SMALL"); PB=$(pf /tmp/mr-inbound-large.eml "$N_LARGE")
  echo "Postfix $(postconf -d -h mail_version) smtpd queuing the same files to disk (row a of bench/peers/postfix-bench.sh): 10 KB ${PA} msg/s, 1 MB ${PB} msg/s"
  echo "Ratios to Postfix in this run: 10 KB $(echo "scale=2; $S_RATE / $PA" | bc)x, 1 MB $(echo "scale=2; $L_RATE / $PB" | bc)x"
fi
rm -f /tmp/mr-inbound-small.eml /tmp/mr-inbound-large.eml
