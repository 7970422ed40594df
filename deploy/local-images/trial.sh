#!/usr/bin/env bash
# Repeats the compose part of README's "Tried on" paragraph: build the image, start compose.yaml
# in relay mode towards a recording SMTP server on the docker bridge, create an API key as the
# compose file says, send with the Resend SDK, scale to two workers, restart the api, scrape
# /metrics, then remove everything (volumes included). Needs a docker daemon, docker-compose (or
# COMPOSE="docker compose"), the base images (official, or deploy/local-images/build.sh) and
# npm ci (for the SDK). Publishes ports 3000, 25, 465 and 587. Not part of npm test.
set -euo pipefail
cd "$(dirname "$0")/../.."
compose=(${COMPOSE:-docker-compose} -p mailroom-trial --env-file "$(mktemp)")
env_file="${compose[-1]}"
bridge="$(ip -4 -o addr show docker0 | awk '{print $4}' | cut -d/ -f1)"
sink_port=2526
cat >"$env_file" <<ENV
MAILROOM_SECRET_KEY=$(openssl rand -base64 32)
POSTGRES_PASSWORD=$(openssl rand -hex 16)
MAILROOM_DELIVERY_MODE=relay
MAILROOM_RELAY_URL=smtp://$bridge:$sink_port
MAILROOM_METRICS_TOKEN=trial-token
MAILROOM_MX_HOST=mail.example.com
MAILROOM_HELO_NAME=mail.example.com
ENV
trap '"${compose[@]}" down -v >/dev/null 2>&1; rm -f "$env_file"' EXIT
dc() { "${compose[@]}" "$@"; }
docker build -q -t mailroom:latest .
dc up -d
for _ in $(seq 60); do curl -sf localhost:3000/ready >/dev/null && break; sleep 2; done
key="$(dc exec -T api node bin/mailroom.js api-keys create --name trial | awk '/token:/{print $2}')"
curl -sf -X POST localhost:3000/domains -H "Authorization: Bearer $key" -H 'content-type: application/json' -d '{"name":"example.com"}' >/dev/null
# No DNS here: the domain is marked verified in the database, as capture mode would.
verified='{"status":"verified","detail":"trial: DNS not checked"}'
dc exec -T postgres psql -qU mailroom -d mailroom -c "update domains set status = 'verified', verified_at = now(), record_status = jsonb_build_object('dkim', '$verified'::jsonb, 'dmarc', '$verified'::jsonb, 'spf_mx', '$verified'::jsonb, 'spf_txt', '$verified'::jsonb)"
trial() { node deploy/local-images/trial.mjs http://127.0.0.1:3000 "$key" example.com "$bridge:$sink_port" "$1"; }
trial 3
dc up -d --scale worker=2
sleep 20
trial 10
dc restart api
for _ in $(seq 60); do curl -sf localhost:3000/ready >/dev/null && break; sleep 2; done
trial 3
curl -sf -H 'Authorization: Bearer trial-token' localhost:3000/metrics | grep -c '^mailroom_' | xargs echo "metrics lines:"
docker ps --filter name=mailroom-trial --format '{{.Names}} {{.Status}}'
echo "trial passed"
