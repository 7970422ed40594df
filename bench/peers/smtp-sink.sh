#!/usr/bin/env bash
# Run Postfix's smtp-sink on 127.0.0.1:PORT in the background and count received messages.
#
#   smtp-sink.sh start PORT [STATE_DIR]      start (default STATE_DIR=/tmp/mr-sink-PORT); prints pid
#   smtp-sink.sh count [STATE_DIR|PORT]      print messages received so far (a number)
#   smtp-sink.sh wait  STATE_DIR|PORT N [TIMEOUT_S]
#                                             block until count >= N or TIMEOUT_S (default 120) passes;
#                                             prints "<count> <seconds waited>"; exit 1 on timeout
#   smtp-sink.sh stop  [STATE_DIR|PORT]      stop it (only the pid this script started)
#
# Counting: smtp-sink -c writes "sess=S quit=Q mesg=M\r" to stdout after each message/session;
# we redirect that to STATE_DIR/counter and read the last record. Nothing is written per message
# besides that ~30-byte counter line (no -d/-D dump), so the disk is never the sink's bottleneck.
# The sink also exits by itself after SINK_MAX_SECONDS (default 1800) via timeout(1).
set -euo pipefail
cmd=${1:-}; shift || true

state_dir() {  # arg: STATE_DIR or PORT or empty
  local a=${1:-}
  if [[ -z "$a" ]]; then echo "usage: see header of $0" >&2; exit 2; fi
  if [[ "$a" =~ ^[0-9]+$ ]]; then echo "/tmp/mr-sink-$a"; else echo "$a"; fi
}
read_count() {
  local f="$1/counter"
  [[ -s "$f" ]] || { echo 0; return; }
  local last; last=$(tail -c 200 "$f" | tr '\r' '\n' | grep 'mesg=' | tail -n1 || true)
  [[ -n "$last" ]] && echo "${last##*mesg=}" || echo 0
}

case "$cmd" in
  start)
    port=${1:?PORT}; dir=$(state_dir "${2:-$port}")
    mkdir -p "$dir"
    if [[ -s "$dir/pid" ]] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      echo "sink already running in $dir (pid $(cat "$dir/pid"))" >&2; exit 1
    fi
    : > "$dir/counter"
    userflag=(); [[ $(id -u) -eq 0 ]] && userflag=(-u nobody)   # required when run as root
    # -c counters, -m max simultaneous connections, last arg = listen backlog.
    setsid timeout "${SINK_MAX_SECONDS:-1800}" smtp-sink -c "${userflag[@]}" -m 512 \
      "127.0.0.1:$port" 1024 > "$dir/counter" 2> "$dir/stderr" < /dev/null &
    echo $! > "$dir/pid"
    for _ in $(seq 50); do   # wait (max 5 s) until it listens
      ss -ltn "sport = :$port" | grep -q LISTEN && break; sleep 0.1
    done
    ss -ltn "sport = :$port" | grep -q LISTEN || { echo "sink did not start: $(cat "$dir/stderr")" >&2; exit 1; }
    echo "$(cat "$dir/pid")"
    ;;
  count)
    read_count "$(state_dir "${1:-}")"
    ;;
  wait)
    dir=$(state_dir "${1:-}"); n=${2:?N}; to=${3:-120}
    start=$(date +%s.%N); deadline=$(echo "$start + $to" | bc)
    while :; do
      c=$(read_count "$dir"); now=$(date +%s.%N)
      if (( c >= n )); then echo "$c $(echo "$now - $start" | bc)"; exit 0; fi
      if (( $(echo "$now > $deadline" | bc) )); then echo "$c $(echo "$now - $start" | bc)"; exit 1; fi
      sleep 0.05
    done
    ;;
  stop)
    dir=$(state_dir "${1:-}")
    if [[ -s "$dir/pid" ]]; then
      pid=$(cat "$dir/pid")
      # pid is the timeout(1) process leading its own session (setsid); kill that process group.
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL -- "-$pid" 2>/dev/null || true
      rm -f "$dir/pid"
    fi
    echo "stopped; received $(read_count "$dir")"
    ;;
  *) sed -n '2,16p' "$0"; exit 2 ;;
esac
