#!/usr/bin/env bash
# Idempotent install of Debian postfix for benchmark peers (smtp-source, smtp-sink, private instances).
# Preseeds "No configuration" so no system MTA is configured, then makes sure no system
# postfix instance is left running (nothing on :25 from us).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

if ! dpkg-query -W -f='${Status}' postfix 2>/dev/null | grep -q "install ok installed"; then
  echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
  echo "postfix postfix/mailname string bench.invalid" | debconf-set-selections
  # policy-rc.d 101 = do not start services from maintainer scripts during this install.
  created_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; created_policy=1
  fi
  trap '[ "$created_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d' EXIT
  if ! apt-get install -y -q --no-install-recommends postfix; then
    apt-get update -q && apt-get install -y -q --no-install-recommends postfix
  fi
fi

# No system postfix must keep running: stop the default instance if it is up.
if [ -e /etc/postfix/main.cf ] && postfix -c /etc/postfix status >/dev/null 2>&1; then
  postfix -c /etc/postfix stop || true
fi
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet postfix 2>/dev/null; then
  systemctl stop postfix || true
fi
if ss -ltn 2>/dev/null | awk '{print $4}' | grep -Eq '(^|:)25$'; then
  echo "WARNING: something is listening on port 25:" >&2; ss -ltnp | grep -E ':25\s' >&2 || true
fi

for t in smtp-source smtp-sink postfix postconf; do
  command -v "$t" >/dev/null || { echo "missing $t" >&2; exit 1; }
done
echo "postfix:     $(postconf -d -h mail_version 2>/dev/null) ($(dpkg-query -W -f='${Version}' postfix))"
echo "smtp-source: $(command -v smtp-source)"
echo "smtp-sink:   $(command -v smtp-sink)"
