// The inbound MX listener (role `mx`, MAILROOM_MX_LISTEN): plain SMTP on port 25 with STARTTLS
// offered (never required: RFC 3207 forbids requiring it on a public MX), no AUTH, the size
// limit advertised in EHLO, 100 recipients per transaction, and graceful shutdown. Policy lives
// in mx-session.ts; this file owns sockets and their lifecycle.
import fs from 'node:fs';
import path from 'node:path';
import type { HostPort } from '../config/schema.js';
import { createResolver } from '../domains/dns-check.js';
import { InboundReceiver } from '../inbound/receive.js';
import { InboundRouter } from '../inbound/routing.js';
import { loadTlsKeyPair } from '../lib/tls-cert.js';
import type { Logger } from '../lib/log.js';
import type { Config } from '../config/schema.js';
import type { Pool } from '../store/db.js';
import { commonServerOptions, gracefulCloser, listenAll } from './listen.js';
import { mxHandlers } from './mx-session.js';
import { SubmissionServer } from './server.js';
import type { Unsubscribes } from '../contacts/unsubscribe.js';

const MAX_RECIPIENTS = 100; // RFC 5321 4.5.3.1.8: a server must accept at least 100
const IDLE_TIMEOUT_MS = 300_000; // RFC 5321 4.5.3.2.7: 5 minutes
const STORE_SETTLE_MS = 10_000;

export interface Mx {
  listeners: HostPort[];
  /** Drains (see listen.ts gracefulCloser); the listening sockets stay open until `hold` is over. */
  close(hold?: Promise<unknown>): Promise<void>;
}

export async function startMx(deps: {
  config: Config;
  log: Logger;
  pool: Pool;
  unsubscribes: Unsubscribes;
}): Promise<Mx> {
  const { config, log, pool } = deps;
  const tls = loadTlsKeyPair({
    certFile: config.tlsCert,
    keyFile: config.tlsKey,
    dataDir: config.dataDir,
    hostname: config.mxHost,
  });
  // Spool files of a previous run that was killed mid-message: those messages were never acknowledged.
  fs.rmSync(path.join(config.dataDir, 'inbound-spool'), { recursive: true, force: true });
  const storing = new Set<Promise<unknown>>();
  const handlers = mxHandlers({
    config,
    log,
    pool,
    storing,
    router: new InboundRouter(pool),
    unsubscribes: deps.unsubscribes,
    receiver: new InboundReceiver({ pool, config, resolver: createResolver(config.dnsServers), log }),
  });
  const { servers, bound } = await listenAll(
    config.mxListen,
    () =>
      new SubmissionServer(
        {
          ...commonServerOptions(tls, config.mxHost),
          ...handlers,
          secure: false,
          banner: 'Mailroom ESMTP',
          size: config.mxMaxSize,
          authOptional: true,
          disabledCommands: ['AUTH'],
          maxRecipients: MAX_RECIPIENTS,
          socketTimeout: IDLE_TIMEOUT_MS,
        },
        config.smtpDataTimeoutMs,
      ),
    log,
    'smtp mx',
  );
  const drain = gracefulCloser(servers, config.shutdownTimeoutMs);
  return {
    listeners: bound,
    async close(hold) {
      await drain(hold);
      // The messages still being stored were cut with their connections (never answered 250, so
      // they roll back): they end before the database pool does, and then hold no client. Bounded:
      // a store stuck on the database is left to the pool's end.
      await Promise.race([
        Promise.allSettled([...storing]),
        new Promise((resolve) => setTimeout(resolve, STORE_SETTLE_MS).unref()),
      ]);
    },
  };
}
