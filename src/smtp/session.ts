// The policy hooks of the submission listeners: who may connect (per-address limit, trusted
// networks), who may authenticate (username mailroom|resend, password an API key, lock-out after
// repeated failures), what a transaction may carry (MAIL FROM on a verified domain of the key's
// team, the team's rate limit), and the DATA handed to the one send path. Every refusal is an
// SMTP reply built from the error table; protocol details stay in server.ts/submission.ts.
import { BlockList, isIPv6 } from 'node:net';
import type { SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { ApiKeys, TokenAuth } from '../auth/api-keys.js';
import type { Config } from '../config/schema.js';
import { parseAddress } from '../mime/addresses.js';
import { withIdempotency } from '../emails/idempotency.js';
import { finishMessage, parseSubmission, type SubmittedMessage } from '../emails/mime-submission.js';
import type { EmailSender, SendContext } from '../emails/send.js';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import { uuid } from '../lib/ids.js';
import { counters } from '../lib/metrics.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { RequestLogRecorder } from '../request-logs/recorder.js';
import type { Pool } from '../store/db.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';
import { AuthLockout } from './auth-lockout.js';

export interface SubmissionDeps {
  config: Config;
  log: Logger;
  pool: Pool;
  apiKeys: ApiKeys;
  sender: EmailSender;
  limiter: RateLimiter;
  recorder: RequestLogRecorder;
}

/** The token is kept (in memory) so that every transaction re-checks the key: a deleted key stops within seconds. */
interface SessionUser {
  key: TokenAuth;
  token: string;
  trusted: boolean;
}
type Handlers = Required<
  Pick<SMTPServerOptions, 'onConnect' | 'onClose' | 'onAuth' | 'onMailFrom' | 'onRcptTo' | 'onData'>
>;

const USERNAMES = new Set(['mailroom', 'resend']);

/** An AppError as the error object smtp-server turns into a reply ("550 5.7.1 ..."). */
export function smtpError(err: AppError, code?: number): Error & { responseCode: number } {
  const r = err.toSmtp();
  return Object.assign(new Error(r.message), { responseCode: code ?? r.code });
}

const userOf = (session: SMTPServerSession): SessionUser => session.user as SessionUser;
const contextOf = (u: SessionUser): SendContext => ({
  teamId: u.key.team_id,
  apiKeyId: u.key.id,
  keyDomainId: u.key.domain_id,
  source: 'smtp',
});

export function submissionHandlers(deps: SubmissionDeps): Handlers {
  const { config, log } = deps;
  const lockout = new AuthLockout(deps.pool);
  const perIp = new Map<string, number>();
  const counted = new Set<string>();
  const trusted = new BlockList();
  for (const entry of config.smtpTrustedNetworks) {
    const [ip, bits] = entry.split('/');
    const family = isIPv6(ip) ? 'ipv6' : 'ipv4';
    if (bits === undefined) trusted.addAddress(ip, family);
    else trusted.addSubnet(ip, Number(bits), family);
  }
  // BlockList.check builds SocketAddress objects on every call: per connection that was a visible
  // part of a session's CPU (issue 27), so the verdict is remembered per address (the list is fixed).
  const trustedSeen = new Map<string, boolean>();
  const isTrusted = (ip: string): boolean => {
    if (config.smtpTrustedNetworks.length === 0) return false;
    let verdict = trustedSeen.get(ip);
    if (verdict === undefined) {
      verdict = trusted.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4');
      if (trustedSeen.size >= 10_000) trustedSeen.clear();
      trustedSeen.set(ip, verdict);
    }
    return verdict;
  };

  const asAppError = (err: unknown, what: string): AppError => {
    if (err instanceof AppError) return err;
    if (isDatabaseUnavailable(err)) {
      log.warn(`smtp submission: ${what}: the database is unavailable; answered 451 4.3.0`, { err: String(err) });
      return new AppError('database_unavailable');
    }
    log.error(`smtp submission: ${what} failed`, { err });
    return new AppError('application_error');
  };

  /** SMTP transactions are in the request log as endpoint `smtp` (method POST: the log's enum). */
  const record = (
    session: SMTPServerSession,
    started: number,
    outcome: { status: number; body: unknown; error?: string },
    request: unknown,
    userAgent: string | null = null,
  ) => {
    const u = userOf(session);
    counters.smtpSubmissions.inc({
      result: outcome.status === 200 ? 'accepted' : 'refused',
      error: outcome.error ?? '',
    });
    deps.recorder.record({
      id: uuid(),
      team_id: u?.key.team_id ?? null,
      api_key_id: u?.key.id ?? null,
      method: 'POST',
      endpoint: 'smtp',
      path: 'smtp',
      status: outcome.status,
      error_name: outcome.error ?? null,
      user_agent: userAgent,
      ip: session.remoteAddress,
      request_body: request,
      response_body: outcome.body,
      duration_ms: Date.now() - started,
      created_at: new Date(started).toISOString(),
    });
  };
  const refusal = (err: AppError) => ({
    status: err.status,
    body: { ...err.toBody(), smtp: `${err.toSmtp().code} ${err.toSmtp().message}` },
    error: err.spec.name,
  });

  async function accept(raw: Buffer, session: SMTPServerSession): Promise<{ id: string; msg: SubmittedMessage }> {
    const u = userOf(session);
    const ctx = contextOf(u);
    const env = session.envelope;
    const envelope = {
      mailFrom: parseAddress(env.mailFrom ? env.mailFrom.address : '', 'from'),
      rcptTo: env.rcptTo.map((r) => parseAddress(r.address, 'to')),
    };
    const msg = await parseSubmission(raw, envelope);
    const domain = await deps.sender.sendingDomain(ctx, msg.request.from.domain);
    const res = await withIdempotency(
      deps.pool,
      { teamId: ctx.teamId, method: 'POST', path: 'smtp' },
      msg.idempotencyKey,
      msg.fingerprint,
      async (complete) => {
        const now = new Date();
        const email = await deps.sender.prepareValidated(ctx, msg.request, now, finishMessage(msg, domain.name, now));
        const body = { id: email.row.id };
        await deps.sender.commit(email, complete(200, body));
        return { status: 200, body };
      },
    );
    return { id: (res.body as { id: string }).id, msg };
  }

  return {
    onConnect(session, callback) {
      const ip = session.remoteAddress;
      const n = (perIp.get(ip) ?? 0) + 1;
      perIp.set(ip, n);
      counted.add(session.id);
      if (n > config.smtpMaxConnectionsPerIp) {
        return callback(
          smtpError(
            new AppError(
              'rate_limit_exceeded',
              `Too many connections from ${ip}; at most ${config.smtpMaxConnectionsPerIp} at a time.`,
            ),
            421,
          ),
        );
      }
      if (!isTrusted(ip)) return callback();
      // A trusted network submits as the configured key, without TLS or AUTH (see README).
      deps.apiKeys.verifyToken(config.smtpTrustedApiKey ?? '', ip).then(
        (key) => {
          session.user = { key, token: config.smtpTrustedApiKey ?? '', trusted: true } satisfies SessionUser;
          callback();
        },
        (err) => callback(smtpError(asAppError(err, 'trusted-network key'), 421)),
      );
    },

    onClose(session) {
      if (!counted.delete(session.id)) return;
      const ip = session.remoteAddress;
      const n = (perIp.get(ip) ?? 1) - 1;
      if (n > 0) perIp.set(ip, n);
      else perIp.delete(ip);
    },

    onAuth(auth, session, callback) {
      const ip = session.remoteAddress;
      const attempt = async () => {
        const wait = await lockout.begin(ip);
        if (wait > 0)
          throw new AppError(
            'rate_limit_exceeded',
            `Too many failed authentication attempts from ${ip}; try again in ${Math.ceil(wait / 60)} minutes.`,
          );
        if (!USERNAMES.has((auth.username ?? '').toLowerCase()))
          throw new AppError(
            'invalid_api_key',
            'Invalid username: use `resend` (or `mailroom`) and an API key as the password.',
          );
        try {
          const key = await deps.apiKeys.verifyToken(auth.password ?? '', ip);
          await lockout.succeed(ip);
          return key;
        } catch (err) {
          if (err instanceof AppError && err.code === 'invalid_api_key')
            throw new AppError('invalid_api_key', 'Invalid API key.');
          await lockout.succeed(ip); // our failure, not a guess
          throw err;
        }
      };
      attempt().then(
        (key) => callback(null, { user: { key, token: auth.password ?? '', trusted: false } satisfies SessionUser }),
        (err) => callback(smtpError(asAppError(err, 'authentication'))),
      );
    },

    onMailFrom(address, session, callback) {
      const started = Date.now();
      const check = async () => {
        if (!address.address)
          throw new AppError('invalid_from_address', 'The null sender (MAIL FROM:<>) cannot submit mail.');
        let from;
        try {
          from = parseAddress(address.address, 'from');
        } catch {
          throw new AppError('invalid_from_address');
        }
        const u = userOf(session);
        u.key = await deps.apiKeys.verifyToken(u.token, session.remoteAddress); // cached a few seconds; a deleted key: refused
        await deps.sender.sendingDomain(contextOf(u), from.domain);
        const decision = await deps.limiter.consume(`team:${u.key.team_id}`);
        if (!decision.allowed) throw new AppError('rate_limit_exceeded');
      };
      check().then(
        () => callback(),
        (err) => {
          const e = asAppError(err, 'MAIL FROM');
          record(session, started, refusal(e), { mail_from: address.address });
          callback(smtpError(e));
        },
      );
    },

    onRcptTo(address, _session, callback) {
      try {
        parseAddress(address.address, 'to');
        callback();
      } catch (err) {
        callback(
          smtpError(
            new AppError(
              'invalid_recipient',
              (err as Error).message.replace(/^Invalid `to` field: /, 'Invalid recipient: '),
            ),
          ),
        );
      }
    },

    onData(stream: SMTPServerDataStream, session, callback) {
      const started = Date.now();
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(chunk);
      });
      stream.on('error', () => {
        /* the client left mid-DATA: nothing was stored, nobody to answer */
      });
      stream.on('end', () => {
        const envelope = {
          mail_from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcpt_to: session.envelope.rcptTo.map((r) => r.address),
        };
        if (stream.sizeExceeded) {
          const e = new AppError(
            'payload_too_large',
            `The message is larger than the limit of ${config.smtpMaxSize} bytes.`,
          );
          record(session, started, refusal(e), { envelope, size: stream.byteLength });
          return callback(smtpError(e));
        }
        const raw = Buffer.concat(chunks);
        accept(raw, session).then(
          ({ id, msg }) => {
            const r = msg.request;
            const summary = {
              envelope,
              from: r.from.address,
              to: r.to.map((a) => a.address),
              cc: r.cc.map((a) => a.address),
              bcc: r.bcc.map((a) => a.address),
              subject: r.subject,
              tags: r.tags,
              size: raw.length,
            };
            record(session, started, { status: 200, body: { id } }, summary, msg.userAgent ?? null);
            callback(null, `2.0.0 Ok: queued as ${id}`);
          },
          (err) => {
            const e = asAppError(err, 'DATA');
            record(session, started, refusal(e), { envelope, size: raw.length });
            callback(smtpError(e));
          },
        );
      });
    },
  };
}
