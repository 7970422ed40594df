// The SMTP submission listeners of MAILROOM_SMTP_LISTEN: STARTTLS or implicit TLS per entry, TLS
// 1.2+, AUTH PLAIN/LOGIN only under TLS, the advertised limits (SIZE, 50 recipients, idle timeout)
// and graceful shutdown. Policy lives in session.ts; this file owns sockets and their lifecycle.
import type { SMTPServerOptions } from 'smtp-server';
import type { SmtpListener } from '../config/schema.js';
import { AppError } from '../errors.js';
import { loadTlsKeyPair } from '../lib/tls-cert.js';
import { commonServerOptions, gracefulCloser, listenAll } from './listen.js';
import { SubmissionServer } from './server.js';
import { submissionHandlers, type SubmissionDeps } from './session.js';

export const MAX_RECIPIENTS = 50;
const IDLE_TIMEOUT_MS = 120_000; // RFC 5321 4.5.3.2 suggests 5 min for the server; 2 min is Postfix's order

export interface Submission {
  /** The listeners as bound (port 0 in the config becomes the real port). */
  listeners: SmtpListener[];
  /** Drains (see listen.ts gracefulCloser); the listening sockets stay open until `hold` is over. */
  close(hold?: Promise<unknown>): Promise<void>;
}

export async function startSubmission(deps: SubmissionDeps): Promise<Submission> {
  const { config, log } = deps;
  const tls = loadTlsKeyPair({
    certFile: config.tlsCert,
    keyFile: config.tlsKey,
    dataDir: config.dataDir,
    hostname: config.mxHost,
  });
  if (tls.generated) log.info('generated a self-signed TLS certificate for SMTP', { dir: config.dataDir });
  const handlers = submissionHandlers(deps);

  const optionsFor = (l: SmtpListener): SMTPServerOptions => ({
    ...commonServerOptions(tls, config.mxHost),
    ...handlers,
    secure: l.security === 'tls',
    banner: 'Mailroom',
    size: config.smtpMaxSize,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    authRequiredMessage: new AppError(
      'missing_api_key',
      'Authentication required: AUTH PLAIN or LOGIN (after STARTTLS) with username `resend` and an API key as the password.',
    ).toSmtp().message,
    disabledCommands: l.security === 'tls' ? ['STARTTLS'] : [],
    maxRecipients: MAX_RECIPIENTS,
    socketTimeout: IDLE_TIMEOUT_MS,
  });

  const { servers, bound } = await listenAll(
    config.smtpListen,
    (l) => new SubmissionServer(optionsFor(l), config.smtpDataTimeoutMs),
    log,
    'smtp submission',
  );
  return { listeners: bound, close: gracefulCloser(servers, config.shutdownTimeoutMs) };
}
