#!/bin/sh
# The part of the official postgres image's entrypoint compose.yaml relies on: a first start
# initialises $PGDATA with POSTGRES_USER (superuser) / POSTGRES_PASSWORD and creates POSTGRES_DB;
# connections from other hosts need the password (scram-sha-256), local ones are trusted.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
if [ "${1:-}" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  : "${POSTGRES_PASSWORD:?the postgres stand-in needs POSTGRES_PASSWORD}"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.auto.conf"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
    createdb -U "$user" -O "$user" "$db"
    pg_ctl -D "$PGDATA" -m fast -w stop
  fi
fi
exec "$@"
