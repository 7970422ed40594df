#!/bin/sh
# As the official redis image: run as the redis user, protected mode off (the container's
# network is the boundary).
set -eu
if [ "${1:-}" = redis-server ]; then
  shift
  set -- redis-server --protected-mode no "$@"
  [ "$(id -u)" = 0 ] && exec setpriv --reuid=redis --regid=redis --init-groups "$@"
fi
exec "$@"
