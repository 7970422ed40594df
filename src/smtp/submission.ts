// The SMTP submission listeners of MAILROOM_SMTP_LISTEN: STARTTLS or implicit TLS per entry, TLS
// 1.2+, AUTH PLAIN/LOGIN only under TLS, the advertised limits (SIZE, 50 recipients, idle timeout)
// and graceful shutdown. Policy lives in session.ts; this file owns sockets and their lifecycle.
import type { AddressInfo } from 'node:net';
import type { SMTPServerOptions } from 'smtp-server';
import type { SmtpListener } from '../config/schema.js';
import { AppError } from '../errors.js';
import { loadTlsKeyPair } from '../lib/tls-cert.js';
import { SubmissionServer } from './server.js';
import { submissionHandlers, type SubmissionDeps } from './session.js';

export const MAX_RECIPIENTS = 50;
const IDLE_TIMEOUT_MS = 120_000; // RFC 5321 4.5.3.2 suggests 5 min for the server; 2 min is Postfix's order
const CLOSE_TIMEOUT_MS = 30_000; // at shutdown, the longest an in-flight DATA may take to finish
const SHUTDOWN_SWEEP_MS = 20;

export interface Submission {
  /** The listeners as bound (port 0 in the config becomes the real port). */
  listeners: SmtpListener[];
  close(): Promise<void>;
}

export async function startSubmission(deps: SubmissionDeps): Promise<Submission> {
  const { config, log } = deps;
  const tls = loadTlsKeyPair({ certFile: config.tlsCert, keyFile: config.tlsKey, dataDir: config.dataDir, hostname: config.mxHost });
  if (tls.generated) log.info('generated a self-signed TLS certificate for SMTP', { dir: config.dataDir });
  const handlers = submissionHandlers(deps);
  const servers: SubmissionServer[] = [];
  const listeners: SmtpListener[] = [];

  const optionsFor = (l: SmtpListener): SMTPServerOptions => ({
    ...handlers,
    secure: l.security === 'tls',
    key: tls.key,
    cert: tls.cert,
    minVersion: 'TLSv1.2',
    name: config.mxHost,
    banner: 'Mailroom',
    logger: false,
    size: config.smtpMaxSize,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    authRequiredMessage: new AppError('missing_api_key', 'Authentication required: AUTH PLAIN or LOGIN (after STARTTLS) with username `resend` and an API key as the password.').toSmtp().message,
    hideSTARTTLS: false,
    disabledCommands: l.security === 'tls' ? ['STARTTLS'] : [],
    hidePIPELINING: false,
    hide8BITMIME: false,
    hideSMTPUTF8: false,
    hideENHANCEDSTATUSCODES: false,
    hideDSN: true,
    hideREQUIRETLS: true,
    disableReverseLookup: true,
    maxRecipients: MAX_RECIPIENTS,
    maxClients: 10_000,
    socketTimeout: IDLE_TIMEOUT_MS,
    closeTimeout: CLOSE_TIMEOUT_MS,
  });

  const closeAll = () => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  try {
    for (const l of config.smtpListen) {
      const server = new SubmissionServer(optionsFor(l));
      // Socket and TLS errors of single clients: the connection is gone, the server goes on.
      server.on('error', (err: Error & { code?: string }) => log.debug('smtp client error', { err: err.message, code: err.code }));
      await new Promise<void>((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(l.port, l.host, () => { server.server.off('error', reject); resolve(); });
      });
      servers.push(server);
      const addr = server.server.address() as AddressInfo;
      listeners.push({ host: l.host, port: addr.port, security: l.security });
      log.info('smtp submission listening', { host: l.host, port: addr.port, security: l.security });
    }
  } catch (err) {
    await closeAll();
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    listeners,
    close() {
      // Stop accepting; idle sessions get 421 at once; a message being received or committed
      // finishes (its 250 is sent) and then gets 421; after CLOSE_TIMEOUT_MS everyone gets 421.
      closing ??= (async () => {
        const reply = new AppError('service_unavailable').toSmtp();
        const sweep = setInterval(() => {
          for (const s of servers) for (const c of s.idleConnections()) c.send(reply.code, reply.message);
        }, SHUTDOWN_SWEEP_MS);
        const done = closeAll();
        for (const s of servers) for (const c of s.idleConnections()) c.send(reply.code, reply.message);
        await done;
        clearInterval(sweep);
      })();
      return closing;
    },
  };
}
