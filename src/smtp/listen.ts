// Binding SMTP servers to their addresses and closing them gracefully: shared by the submission
// and MX listeners. On close (draining): new sessions are greeted with 421 4.3.2 and idle ones
// get it at once; a message being received or committed finishes (its reply is sent) and then
// gets 421; the listening sockets close when no session is left, or at the deadline (the
// shutdown timeout), when the sessions still open get 421 and are closed.
import type { AddressInfo } from 'node:net';
import type { SMTPServerOptions } from 'smtp-server';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import { sleep } from '../lib/time.js';
import type { SubmissionConnection, SubmissionServer } from './server.js';

const SHUTDOWN_SWEEP_MS = 20;
/**
 * Past the deadline, how long a message received in full may still take to be stored and answered
 * before its session is cut anyway (the MX waits as long for its stores before its pool ends).
 */
export const STORING_GRACE_MS = 10_000;

/** What every listener of ours shares: TLS 1.2+, the extensions advertised, no reverse DNS, no library logging. */
export function commonServerOptions(
  tls: { key: string | Buffer; cert: string | Buffer },
  name: string,
): SMTPServerOptions {
  return {
    key: tls.key,
    cert: tls.cert,
    minVersion: 'TLSv1.2',
    name,
    logger: false,
    hideSTARTTLS: false,
    hidePIPELINING: false,
    hide8BITMIME: false,
    hideSMTPUTF8: false,
    hideENHANCEDSTATUSCODES: false,
    hideDSN: true,
    hideREQUIRETLS: true,
    disableReverseLookup: true,
    maxClients: 10_000,
  };
}

export async function listenAll<L extends { host: string; port: number }>(
  entries: L[],
  make: (l: L) => SubmissionServer,
  log: Logger,
  what: string,
): Promise<{ servers: SubmissionServer[]; bound: L[] }> {
  const servers: SubmissionServer[] = [];
  const bound: L[] = [];
  try {
    for (const l of entries) {
      const server = make(l);
      // Socket and TLS errors of single clients: the connection is gone, the server goes on.
      server.on('error', (err: Error & { code?: string }) =>
        log.debug(`${what} client error`, { err: err.message, code: err.code }),
      );
      await new Promise<void>((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(l.port, l.host, () => {
          server.server.off('error', reject);
          resolve();
        });
      });
      servers.push(server);
      const addr = server.server.address() as AddressInfo;
      bound.push({ ...l, port: addr.port });
      log.info(`${what} listening`, { ...l, port: addr.port });
    }
  } catch (err) {
    await closeServers(servers);
    throw err;
  }
  return { servers, bound };
}

const closeServers = (servers: SubmissionServer[]) =>
  Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));

/**
 * `hold`: the rest of the process's shutdown; the listening sockets stay open (answering 421)
 * until it is over too, so that while the process drains, a client learns at once to go elsewhere.
 */
export function gracefulCloser(
  servers: SubmissionServer[],
  timeoutMs: number,
): (hold?: Promise<unknown>) => Promise<void> {
  let closing: Promise<void> | undefined;
  return (hold = Promise.resolve()) => {
    closing ??= (async () => {
      const reply = new AppError('service_unavailable').toSmtp();
      for (const s of servers) s.draining = true;
      const deadline = Date.now() + timeoutMs;
      let held = false;
      void hold.finally(() => {
        held = true;
      });
      // A session becomes idle when its DATA has been answered: it is told then, within a sweep.
      for (;;) {
        for (const s of servers) for (const c of s.idleConnections()) c.send(reply.code, reply.message);
        if ((held && servers.every((s) => s.connections.size === 0)) || Date.now() >= deadline) break;
        await sleep(SHUTDOWN_SWEEP_MS);
      }
      // Past the deadline a DATA still arriving is cut off, unacknowledged; a message received in
      // full whose store has not answered yet gets that answer first (bounded by STORING_GRACE_MS):
      // cut then, it would be answered 421 while its commit may already be under way, and the
      // sender would send it again (test/inbound/mx-shutdown.test.ts saw it stored twice).
      const cut = new WeakSet<object>();
      const graceEnd = Date.now() + STORING_GRACE_MS;
      for (;;) {
        let waiting = false;
        for (const s of servers)
          for (const c of s.connections) {
            if (cut.has(c)) continue;
            if ((c as SubmissionConnection).storing && Date.now() < graceEnd) {
              waiting = true;
              continue;
            }
            cut.add(c);
            c.send(reply.code, reply.message);
            c.close();
          }
        if (!waiting) break;
        await sleep(SHUTDOWN_SWEEP_MS);
      }
      await closeServers(servers);
    })();
    return closing;
  };
}
