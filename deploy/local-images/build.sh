#!/usr/bin/env bash
# Stand-ins for the images Dockerfile and compose.yaml name (node:20-bookworm-slim, postgres:15,
# redis:7), made from Debian 12 packages, and pg-client:18 (Debian unstable's PostgreSQL 18 client,
# for README's move from the embedded database). They exist only because the development machine
# reaches Debian's mirror and npm but no image registry; anywhere else, use the official images.
#   deploy/local-images/build.sh [docker|podman]     (as root; needs debootstrap)
#   MAILROOM_IMAGES="node postgres redis pg-client" picks (default: the first three)
# Node is this machine's (`command -v node`: Node 20), copied in with npm.
set -euo pipefail
rt="${1:-docker}"
here="$(cd "$(dirname "$0")" && pwd)"
work="${MAILROOM_IMAGES_WORK:-/tmp/mailroom-local-images}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$work"
base="$work/bookworm"
if [ ! -x "$base/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase bookworm "$base" "$mirror"
fi

# fresh copy of the base → $1; apt-get install the rest of the arguments inside it
rootfs() {
  local dir="$work/$1"
  shift
  rm -rf "$dir"
  cp -a "$base" "$dir"
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod +x "$dir/usr/sbin/policy-rc.d"
  if [ $# -gt 0 ]; then
    mkdir -p "$dir/etc/postgresql-common"
    echo 'create_main_cluster = false' >"$dir/etc/postgresql-common/createcluster.conf"
    chroot "$dir" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive chroot "$dir" apt-get install -y -qq --no-install-recommends "$@"
  fi
  chroot "$dir" apt-get clean
  rm -rf "$dir/var/lib/apt/lists/"* "$dir/usr/sbin/policy-rc.d"
}

# import $1 (directory) as $2 (tag) with the Dockerfile instructions that follow
import() {
  local dir="$work/$1" tag="$2"
  shift 2
  local changes=()
  for c in "$@"; do changes+=(--change "$c"); done
  tar -C "$dir" -c . | "$rt" import "${changes[@]}" - "$tag"
}

want() { [[ " ${MAILROOM_IMAGES:-node postgres redis} " == *" $1 "* ]]; }

# node:20-bookworm-slim (MAILROOM_IMAGES="node redis" builds only those)
if want node; then
node_bin="$(command -v node)"
npm_dir="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"
rootfs node
install -m 0755 "$node_bin" "$work/node/usr/local/bin/node"
mkdir -p "$work/node/usr/local/lib/node_modules"
cp -a "$npm_dir" "$work/node/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/node/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/node/usr/local/bin/npx"
# This machine's CA bundle (NODE_EXTRA_CA_CERTS): its way out to npm inspects TLS with its own CA.
ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
envs=()
if [ -f "$ca" ]; then
  install -m 0644 "$ca" "$work/node/usr/local/share/machine-ca.crt"
  envs=('ENV NODE_EXTRA_CA_CERTS=/usr/local/share/machine-ca.crt')
fi
import node node:20-bookworm-slim "${envs[@]}" 'CMD ["node"]'
fi

# postgres:15, with the official image's POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB
if want postgres; then
rootfs postgres postgresql-15
install -m 0755 "$here/postgres-entrypoint.sh" "$work/postgres/usr/local/bin/docker-entrypoint.sh"
import postgres postgres:15 \
  'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  'ENV PGDATA=/var/lib/postgresql/data' 'VOLUME /var/lib/postgresql/data' 'EXPOSE 5432' \
  'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["postgres"]'
fi

# redis:7 (the official image has protected mode off: the entrypoint does the same)
if want redis; then
rootfs redis redis-server
install -m 0755 "$here/redis-entrypoint.sh" "$work/redis/usr/local/bin/docker-entrypoint.sh"
mkdir -p "$work/redis/data"
chroot "$work/redis" chown redis:redis /data
import redis redis:7 'WORKDIR /data' 'VOLUME /data' 'EXPOSE 6379' 'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["redis-server"]'
fi
# pg-client:18 (pg_dump/pg_restore 18; Debian 12 has 15 only)
if want pg-client; then
  sid="$work/sid"
  [ -x "$sid/usr/bin/apt-get" ] || debootstrap --variant=minbase sid "$sid" "$mirror"
  chroot "$sid" apt-get -o Acquire::Check-Valid-Until=false update -qq
  DEBIAN_FRONTEND=noninteractive chroot "$sid" apt-get install -y -qq --no-install-recommends postgresql-client-18
  chroot "$sid" apt-get clean
  tar -C "$sid" -c . | "$rt" import --change 'ENV PATH=/usr/lib/postgresql/18/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - pg-client:18
fi
"$rt" images
