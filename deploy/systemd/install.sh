#!/usr/bin/env bash
# Installs Mailroom's systemd units: the build in /opt/mailroom (a checkout after `npm ci`, or
# the files the Dockerfile copies), a `mailroom` system user, /etc/mailroom/mailroom.env (kept if
# present), the role units and mailroom.target. Then: edit the env file, and
#   systemctl enable --now mailroom.target
# More processes of a role: systemctl enable --now mailroom-worker@2
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
units="${SYSTEMD_UNIT_DIR:-/etc/systemd/system}"
etc="${MAILROOM_ETC:-/etc/mailroom}"
id mailroom >/dev/null 2>&1 || useradd --system --user-group --home-dir /var/lib/mailroom --shell /usr/sbin/nologin mailroom
install -d -m 0750 -o root -g mailroom "$etc"
[ -e "$etc/mailroom.env" ] || install -m 0640 -o root -g mailroom "$here/mailroom.env" "$etc/mailroom.env"
for role in api smtp mx worker; do
  install -m 0644 "$here/mailroom-role@.service" "$units/mailroom-$role@.service"
done
install -m 0644 "$here/mailroom.target" "$units/mailroom.target"
command -v systemctl >/dev/null && systemctl daemon-reload || true
echo "installed; edit $etc/mailroom.env, then: systemctl enable --now mailroom.target"
