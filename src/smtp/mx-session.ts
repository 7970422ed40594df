// The policy hooks of the inbound MX listener: how many connections and messages a client
// address may have, which recipients are taken (routing.ts: receiving domains and return paths,
// never a relay), and what happens to DATA: spooled, size-checked, checked for a sane header
// section, then stored as received mail and/or applied as a bounce/complaint report. A reply of
// 250 is sent only after everything is committed; failures of ours answer 451 so the sender
// retries, and nothing is ever sent back to the sender (no bounce loops).
import path from 'node:path';
import type { SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import type { InboundReceiver, InboundEnvelope, TeamDelivery } from '../inbound/receive.js';
import { malformedReason } from '../inbound/parse.js';
import { handleReturnPathMessage } from '../inbound/return-path.js';
import type { InboundRouter, Route } from '../inbound/routing.js';
import { Spool } from '../inbound/spool.js';
import type { Logger } from '../lib/log.js';
import { counters } from '../lib/metrics.js';
import type { Pool } from '../store/db.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';
import { smtpError } from './session.js';
import type { Unsubscribes } from '../contacts/unsubscribe.js';

export interface MxDeps {
  config: Config;
  log: Logger;
  pool: Pool;
  router: InboundRouter;
  receiver: InboundReceiver;
  /** List-Unsubscribe mailto: a message to unsubscribe+<token>@<return-path host> unsubscribes */
  unsubscribes: Unsubscribes;
  /** the messages being stored, for the shutdown to wait for before the pool ends (mx.ts) */
  storing?: Set<Promise<unknown>>;
}

type Handlers = Required<Pick<SMTPServerOptions, 'onConnect' | 'onClose' | 'onMailFrom' | 'onRcptTo' | 'onData'>>;
interface MxState {
  routes: Map<string, Route>;
  /** a message still arriving: disposed if the client goes away before its end */
  spool?: Spool;
  /** a message received in full and being stored: aborted if the connection is cut before the reply */
  storing?: AbortController;
}

const RATE_WINDOW_MS = 60_000;
const stateOf = (s: SMTPServerSession): MxState => {
  const holder = s as SMTPServerSession & { mx?: MxState };
  holder.mx ??= { routes: new Map() };
  return holder.mx;
};

export function mxHandlers(deps: MxDeps): Handlers {
  const { config, log } = deps;
  const spoolDir = path.join(config.dataDir, 'inbound-spool');
  const perIp = new Map<string, number>();
  const counted = new Set<string>();
  const rate = new Map<string, { start: number; n: number }>();

  const fail = (err: unknown, what: string) => {
    if (err instanceof AppError) return smtpError(err);
    if (isDatabaseUnavailable(err)) {
      log.warn(`mx: ${what}: the database is unavailable; answered 451 4.3.0`, { err: String(err) });
      return smtpError(new AppError('database_unavailable'));
    }
    log.error(`mx: ${what} failed`, { err });
    return smtpError(new AppError('application_error', 'Temporary local problem, please try again later.'));
  };

  async function process(spool: Spool, session: SMTPServerSession, signal: AbortSignal): Promise<string[]> {
    const st = stateOf(session);
    const env: InboundEnvelope = {
      mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      clientIp: session.remoteAddress,
      helo: session.hostNameAppearsAs ?? '',
      tls: Boolean(session.secure),
    };
    const teams = new Map<string, TeamDelivery>();
    const returnPaths: { rcpt: string; route: Extract<Route, { kind: 'return_path' }> }[] = [];
    const unsubscribes: string[] = [];
    for (const r of session.envelope.rcptTo) {
      const route = st.routes.get(r.address.toLowerCase());
      if (route?.kind === 'receive') {
        const t = teams.get(route.teamId) ?? { teamId: route.teamId, domainId: route.domainId, recipients: [] };
        t.recipients.push(r.address.toLowerCase());
        teams.set(route.teamId, t);
      } else if (route?.kind === 'return_path') returnPaths.push({ rcpt: r.address.toLowerCase(), route });
      else if (route?.kind === 'unsubscribe') unsubscribes.push(route.token);
    }
    const ids: string[] = teams.size ? await deps.receiver.receive(spool, env, [...teams.values()], signal) : [];
    if (returnPaths.length) {
      signal.throwIfAborted();
      const raw = await spool.readAll();
      for (const { rcpt, route } of returnPaths) {
        const out = await handleReturnPathMessage({ pool: deps.pool, log }, raw, {
          teamId: route.teamId,
          domainId: route.domainId,
          emailId: route.emailId,
          rcpt,
          mailFrom: env.mailFrom,
        });
        ids.push(`${out.kind}${out.emailId ? `:${out.emailId}` : ''}`);
      }
    }
    // The message itself says nothing we need: reaching the signed address is the request (same scope as one-click).
    for (const token of unsubscribes) {
      signal.throwIfAborted();
      const out = await deps.unsubscribes.apply(token, 'one_click', { via: 'mailto' });
      ids.push(out ? `unsubscribe:${out.changed ? 'done' : 'unchanged'}` : 'unsubscribe:unknown');
    }
    return ids;
  }

  return {
    onConnect(session, callback) {
      const ip = session.remoteAddress;
      const n = (perIp.get(ip) ?? 0) + 1;
      if (n > config.mxMaxConnectionsPerIp) return callback(smtpError(new AppError('too_many_connections')));
      perIp.set(ip, n);
      counted.add(session.id);
      callback();
    },
    onClose(session) {
      const st = stateOf(session);
      st.spool?.dispose(); // a client gone mid-DATA leaves no file behind
      // Cut while its message was being stored (the shutdown deadline, or the client gone): it
      // never got 250 and will send again, so the store stops and commits nothing.
      st.storing?.abort(new AppError('service_unavailable'));
      if (!counted.delete(session.id)) return;
      const n = (perIp.get(session.remoteAddress) ?? 1) - 1;
      if (n <= 0) perIp.delete(session.remoteAddress);
      else perIp.set(session.remoteAddress, n);
    },
    onMailFrom(_address, session, callback) {
      const now = Date.now();
      const r = rate.get(session.remoteAddress);
      if (!r || now - r.start >= RATE_WINDOW_MS) {
        if (rate.size > 100_000) rate.clear();
        rate.set(session.remoteAddress, { start: now, n: 1 });
      } else if (++r.n > config.mxRateLimit) {
        return callback(
          smtpError(new AppError('rate_limit_exceeded', 'Too many messages from your address, try again later.')),
        );
      }
      stateOf(session).routes.clear();
      callback();
    },
    onRcptTo(address, session, callback) {
      deps.router.route(address.address).then(
        (route) => {
          counters.mxRecipients.inc({ route: route.kind === 'refuse' ? 'refused' : route.kind });
          if (route.kind === 'refuse') return callback(smtpError(route.error));
          if (route.kind === 'unsubscribe' && !deps.unsubscribes.valid(route.token))
            return callback(smtpError(new AppError('not_found', 'No such unsubscribe address.')));
          stateOf(session).routes.set(address.address.toLowerCase(), route);
          callback();
        },
        (err) => callback(fail(err, 'recipient lookup')),
      );
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const spool = new Spool(spoolDir);
      stateOf(session).spool = spool;
      stream.on('data', (chunk: Buffer) => {
        if (!stream.sizeExceeded) spool.write(chunk);
      });
      stream.once('end', () => {
        // Received in full: from here the store owns the spool (its end disposes it), so a
        // connection cut now cannot pull the file from under its readers.
        const st = stateOf(session);
        if (st.spool === spool) st.spool = undefined;
        const storing = new AbortController();
        st.storing = storing;
        const finish = async () => {
          if (stream.sizeExceeded)
            throw new AppError('payload_too_large', `Message size exceeds the limit of ${config.mxMaxSize} bytes.`);
          const reason = malformedReason(spool.head());
          if (reason) throw new AppError('message_malformed', `Malformed message: ${reason}.`);
          return process(spool, session, storing.signal);
        };
        const done = finish()
          .then(
            (ids) => {
              counters.mxMessages.inc({ result: 'accepted', code: 250 });
              callback(null, `2.0.0 Ok: queued as ${ids.join(' ')}`);
            },
            (err) => {
              const reply = fail(err, 'storing a message');
              counters.mxMessages.inc({ result: 'refused', code: reply.responseCode });
              callback(reply);
            },
          )
          .finally(() => {
            spool.dispose();
            if (st.storing === storing) st.storing = undefined;
            deps.storing?.delete(done);
          });
        deps.storing?.add(done);
      });
    },
  };
}
