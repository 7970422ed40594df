#!/usr/bin/env bash
# Postfix peer benchmark: a private Postfix instance relaying to smtp-sink, all on 127.0.0.1.
# Rows:
#   a) accept rate, connections reused   : smtp-source -d -s 20 -m N_A -l 2000 ...
#   b) accept rate, one msg per connection: smtp-source    -s 20 -m N_B -l 2000 ...
#   (postfix µs: CPU of the instance's processes per message while smtp-source sends, relaying included)
#   c) end-to-end relay rate             : smtp-source -d -s 20 -m N_C -l 2000, timed from start
#                                           until smtp-sink has counted all N_C messages
# Each row runs against a freshly started instance (empty queue). Every step is bounded by
# count (N) and time (timeout), and everything started here is stopped on exit.
# Env (defaults): N_A=15000 N_B=10000 N_C=15000 (each row ~20-35 s on 2 cores) SESSIONS=20 SIZE=2000 LISTEN_PORT=26025
#   SINK_PORT=26026 DIR=/tmp/mr-postfix RUN_TIMEOUT=120 (s per row) RESULTS_FILE (optional copy)
#   MSG_FILE (send this pre-formatted message with -F instead of -l SIZE bytes) ROWS="a b c" (which rows)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N_A=${N_A:-15000}; N_B=${N_B:-10000}; N_C=${N_C:-15000}
SESSIONS=${SESSIONS:-20}; SIZE=${SIZE:-2000}
LISTEN_PORT=${LISTEN_PORT:-26025}; SINK_PORT=${SINK_PORT:-26026}
DIR=${DIR:-/tmp/mr-postfix}; RUN_TIMEOUT=${RUN_TIMEOUT:-120}
SINK_DIR="$DIR-sink"
ROWS=${ROWS:-a b c}
if [[ -n "${MSG_FILE:-}" ]]; then PAYLOAD=(-F "$MSG_FILE"); SIZE="$(stat -c %s "$MSG_FILE") (file)"; else PAYLOAD=(-l "$SIZE"); fi
FROM=from@bench.test; TO=to@sink.test

cleanup() {
  "$here/postfix-instance.sh" stop "$DIR" >/dev/null 2>&1 || true
  "$here/smtp-sink.sh" stop "$SINK_DIR" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }
# CPU ticks (1/100 s) of the instance: its master (with the children it reaped) and every live
# child of it (smtpd, cleanup, qmgr, smtp, ...), all of Postfix's work on the row so far.
pf_ticks() {
  local master; master=$(head -1 "$DIR/queue/pid/master.pid" 2>/dev/null | tr -d ' ') || true
  [[ -n "$master" ]] || { echo 0; return; }
  { sed 's/.*) //' "/proc/$master/stat" | awk '{print $12 + $13 + $14 + $15}'
    { cat /proc/[0-9]*/stat 2>/dev/null || true; } | sed 's/.*) //' | awk -v pm="$master" '$2 == pm {print $12 + $13}'
  } | awk '{t += $1} END {print t + 0}'
}
rate() { echo "scale=0; $1 / $2" | bc; }   # msgs / seconds
fmt() { printf '%.2f' "$1"; }

# run_row LABEL N SMTP_SOURCE_FLAGS... ; sets ACC_S E2E_S SRC_ERR DELIVERED
run_row() {
  local label=$1 n=$2; shift 2
  cleanup
  "$here/smtp-sink.sh" start "$SINK_PORT" "$SINK_DIR" >/dev/null
  "$here/postfix-instance.sh" start "$DIR" "$LISTEN_PORT" "$SINK_PORT" >/dev/null
  sleep 1
  echo "[$label] smtp-source $* -m $n ${PAYLOAD[*]} -f $FROM -t $TO 127.0.0.1:$LISTEN_PORT" >&2
  local t0 t1 t2 rc=0 k0
  k0=$(pf_ticks); t0=$(now)
  timeout "$RUN_TIMEOUT" smtp-source "$@" -m "$n" "${PAYLOAD[@]}" -f "$FROM" -t "$TO" \
      "127.0.0.1:$LISTEN_PORT" 2> "$DIR-src.err" || rc=$?
  t1=$(now); ACC_CPU_US=$((($(pf_ticks) - k0) * 10000 / n))
  SRC_ERR=$(grep -c . "$DIR-src.err" || true)
  [[ $rc -eq 0 ]] || echo "[$label] smtp-source exit $rc (124 = timed out)" >&2
  # wait (bounded) until the sink has all n messages
  local left; left=$(echo "$RUN_TIMEOUT - ($t1 - $t0)" | bc); (( $(echo "$left < 5" | bc) )) && left=5
  "$here/smtp-sink.sh" wait "$SINK_DIR" "$n" "$left" >/dev/null || echo "[$label] sink did not get all $n in time" >&2
  t2=$(now)
  DELIVERED=$("$here/smtp-sink.sh" count "$SINK_DIR")
  ACC_S=$(echo "$t1 - $t0" | bc); E2E_S=$(echo "$t2 - $t0" | bc)
  local accepted; accepted=$(grep -c ': message-id=<' "$DIR/log/maillog" || true)
  echo "[$label] accepted(queued)=$accepted delivered=$DELIVERED in ${ACC_S}s / ${E2E_S}s, source errors=$SRC_ERR" >&2
}

PF_VERSION=$(postconf -d -h mail_version)
CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
MACHINE="$(nproc) cores, $CPU, $(free -g | awk '/Mem:/{print $2}') GB RAM, Debian $(cat /etc/debian_version), kernel $(uname -r), queue on $(df -T "$(dirname "$DIR")" | awk 'NR==2{print $2}')"

A=(0 1 1 0 0 0); B=(0 1 1 0 0 0); C=(0 1 1 0 0 0)
[[ " $ROWS " == *" a "* ]] && { run_row a "$N_A" -d -s "$SESSIONS"; A=("$N_A" "$ACC_S" "$E2E_S" "$DELIVERED" "$SRC_ERR" "$ACC_CPU_US"); }
[[ " $ROWS " == *" b "* ]] && { run_row b "$N_B" -s "$SESSIONS";    B=("$N_B" "$ACC_S" "$E2E_S" "$DELIVERED" "$SRC_ERR" "$ACC_CPU_US"); }
[[ " $ROWS " == *" c "* ]] && { run_row c "$N_C" -d -s "$SESSIONS"; C=("$N_C" "$ACC_S" "$E2E_S" "$DELIVERED" "$SRC_ERR" "$ACC_CPU_US"); }
cleanup

{
echo "Postfix $PF_VERSION peer benchmark, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "Machine: $MACHINE"
echo "Sessions=$SESSIONS, message size=$SIZE bytes, relay to smtp-sink on 127.0.0.1:$SINK_PORT"
printf '%-46s %7s %9s %9s %10s %7s %12s\n' "row" "N" "seconds" "msg/s" "delivered" "errors" "postfix µs"
printf '%-46s %7s %9s %9s %10s %7s %12s\n' "a) accept, reused connections (-d)" "${A[0]}" "$(fmt "${A[1]}")" "$(rate "${A[0]}" "${A[1]}")" "${A[3]}" "${A[4]}" "${A[5]}"
printf '%-46s %7s %9s %9s %10s %7s %12s\n' "b) accept, one message per connection" "${B[0]}" "$(fmt "${B[1]}")" "$(rate "${B[0]}" "${B[1]}")" "${B[3]}" "${B[4]}" "${B[5]}"
printf '%-46s %7s %9s %9s %10s %7s\n' "c) end-to-end relay to sink (-d)" "${C[0]}" "$(fmt "${C[2]}")" "$(rate "${C[0]}" "${C[2]}")" "${C[3]}" "${C[4]}"
echo "(also: end-to-end in run a: $(rate "${A[0]}" "${A[2]}") msg/s, in run b: $(rate "${B[0]}" "${B[2]}") msg/s; accept in run c: $(rate "${C[0]}" "${C[1]}") msg/s)"
} | tee ${RESULTS_FILE:+"$RESULTS_FILE"}
